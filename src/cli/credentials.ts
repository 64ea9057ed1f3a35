import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { CliError } from './cli-errors.js';

/** What `kurate login` keeps per server: the token and what the server said about it. */
export interface SavedLogin {
  token: string;
  tokenId: string;
  email: string;
  scopes: string[];
  expiresAt: string | null;
  createdAt: string;
}

interface CredentialsFile {
  /** By server URL (KURATE_URL without a trailing slash). */
  servers: Record<string, SavedLogin>;
}

/** `$XDG_CONFIG_HOME/kurate/credentials.json`, or `~/.config/kurate/credentials.json`. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(env.HOME || homedir(), '.config');
  return path.join(base, 'kurate', 'credentials.json');
}

function readFile(file: string): CredentialsFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: {} };
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<CredentialsFile>;
    return { servers: parsed.servers && typeof parsed.servers === 'object' ? parsed.servers : {} };
  } catch {
    throw new CliError(`${file} is not valid JSON: fix or delete it (then run kurate login again).`);
  }
}

/** The saved login for this server, or null. */
export function savedLogin(baseUrl: string, env: NodeJS.ProcessEnv = process.env): SavedLogin | null {
  return readFile(credentialsPath(env)).servers[baseUrl] ?? null;
}

/**
 * Saves (or with `login` null, forgets) the login for a server. The file is written whole to a temporary file
 * created with mode 0600 and renamed over the old one, so it is never readable by others, not even for a moment;
 * the folder is 0700. Returns the file's path; removes the file when no server is left in it.
 */
export function storeLogin(baseUrl: string, login: SavedLogin | null, env: NodeJS.ProcessEnv = process.env): string {
  const file = credentialsPath(env);
  const contents = readFile(file);
  if (login) contents.servers[baseUrl] = login;
  else delete contents.servers[baseUrl];
  if (Object.keys(contents.servers).length === 0) {
    rmSync(file, { force: true });
    return file;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
  // A umask cannot widen 0600, but a file that existed with other bits keeps them on some systems: set it.
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

/** The file's permission bits (e.g. 0o600), or null when it does not exist. */
export function fileMode(file: string): number | null {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return null;
  }
}
