import { savedLogin } from './credentials.js';
import { CliError, ServerError } from './cli-errors.js';

export { CliError, ServerError };

export interface ClientOptions {
  /**
   * The command needs an admin's token (`kurate user …`): a 401 or 403 then says so, since the server cannot know
   * which kind of token the user should have set.
   */
  needsAdmin?: boolean;
  /** The request is a login (`kurate login`): a 401 answers the password, so no advice about tokens goes with it. */
  login?: boolean;
}

const DEFAULT_URL = 'http://localhost:3000';
// An import batch is real work on the server; everything else answers in milliseconds.
const TIMEOUT_MS = 5 * 60_000;

/**
 * Talks to a running Kurate over its REST API. The CLI never opens the database itself: the embedded database
 * belongs to the one server process.
 */
export class KurateClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly options: ClientOptions = {},
    /** Where the token came from: KURATE_TOKEN, or the login `kurate login` saved for this server. */
    readonly tokenSource: 'environment' | 'login' | null = token ? 'environment' : null,
  ) {}

  /** A client of the same server sending another token (or none). */
  withToken(token: string | undefined): KurateClient {
    return new KurateClient(this.baseUrl, token, this.options);
  }

  /**
   * Reads KURATE_URL (default http://localhost:3000) and KURATE_TOKEN; without KURATE_TOKEN, the token `kurate login`
   * saved for that server, if any (~/.config/kurate/credentials.json).
   */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env, options: ClientOptions = {}): KurateClient {
    const raw = env.KURATE_URL?.trim() || DEFAULT_URL;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new CliError(`KURATE_URL is not a URL: "${raw}" (expected something like ${DEFAULT_URL}).`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new CliError(`KURATE_URL must start with http:// or https:// (got "${raw}").`);
    }
    const baseUrl = raw.replace(/\/+$/, '');
    const fromEnvironment = env.KURATE_TOKEN?.trim();
    if (fromEnvironment) return new KurateClient(baseUrl, fromEnvironment, options, 'environment');
    const saved = savedLogin(baseUrl, env);
    return new KurateClient(baseUrl, saved?.token, options, saved ? 'login' : null);
  }

  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    return this.request<T>('GET', search ? `${path}?${search}` : path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }

  /** A multipart/form-data POST (an upload); answered with JSON. */
  postForm<T>(path: string, form: FormData): Promise<T> {
    return this.request<T>('POST', path, form);
  }

  /** The raw bytes of a GET (a file). */
  async getBytes(path: string): Promise<Buffer> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw this.unreachable(error);
    }
    if (response.ok) return Buffer.from(await response.arrayBuffer());
    const payload = parseJson(await response.text());
    throw new ServerError(response.status, this.errorMessage(response.status, payload));
  }

  /** DELETE, answered with 204 No Content. */
  async delete(path: string): Promise<void> {
    await this.request<unknown>('DELETE', path, undefined, { emptyOk: true });
  }

  private async request<T>(method: string, path: string, body?: unknown, options: { emptyOk?: boolean } = {}): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    const isForm = body instanceof FormData;
    // fetch writes a form's multipart content type (with its boundary) itself.
    if (body !== undefined && !isForm) headers['content-type'] = 'application/json';
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw this.unreachable(error);
    }
    const text = await response.text();
    const payload = parseJson(text);
    if (response.ok) {
      if (payload === undefined && options.emptyOk && text === '') return undefined as T;
      if (payload === undefined) throw new CliError(`${this.baseUrl} answered ${method} ${path} with something other than JSON: is KURATE_URL a Kurate server?`);
      return payload as T;
    }
    const code = (payload as { code?: unknown } | undefined)?.code;
    throw new ServerError(response.status, this.errorMessage(response.status, payload), typeof code === 'string' ? code : undefined);
  }

  private unreachable(error: unknown): CliError {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return new CliError(`Kurate at ${this.baseUrl} did not answer within ${TIMEOUT_MS / 1000} s.`);
    }
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    const detail = typeof code === 'string' && code !== 'ECONNREFUSED' ? ` (${code})` : '';
    return new CliError(`Cannot reach Kurate at ${this.baseUrl}: is it running?${detail}`);
  }

  private errorMessage(status: number, payload: unknown): string {
    const message = (payload as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string' && message) {
      if (this.options.login) return message;
      const correlationId = (payload as { correlationId?: unknown }).correlationId;
      if (typeof correlationId === 'string') return `${message} (correlation id ${correlationId})`;
      // The server cannot know the request came from the CLI, where a token is the way to log in.
      if (status === 401 && this.tokenSource === 'login') return `${message} The login saved by kurate login was refused (expired or revoked): run kurate login again.`;
      if (this.options.needsAdmin && (status === 401 || status === 403)) return `${message} Set KURATE_TOKEN to an admin's API token${status === 403 ? ' (admin scope)' : ''}.`;
      return status === 401 && !this.token ? `${message} Run kurate login, or set KURATE_TOKEN to an API token.` : message;
    }
    if (status === 401 || status === 403) {
      return `Kurate at ${this.baseUrl} refused the request (${status}): ${this.options.needsAdmin ? "set KURATE_TOKEN to an admin's API token" : 'check KURATE_TOKEN'}.`;
    }
    if (status === 404) return `Kurate at ${this.baseUrl} has no such route (404): is KURATE_URL a Kurate server of this version?`;
    return `Kurate at ${this.baseUrl} answered ${status}.`;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
