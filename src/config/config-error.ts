/** A bad configuration value; its message names the variable. Thrown while the configuration is read, at boot. */
export class ConfigError extends Error {}
