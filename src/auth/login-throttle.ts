/** Per client address, on the forms that check a secret (login, setup): at most 10 tries a minute. */
export const LOGIN_THROTTLER = { name: 'login', ttl: 60_000, limit: 10 };
export const LOGIN_THROTTLE = { login: { ttl: LOGIN_THROTTLER.ttl, limit: LOGIN_THROTTLER.limit } };
export const THROTTLED_MESSAGE = 'Too many attempts from your address. Wait a minute, then try again.';
