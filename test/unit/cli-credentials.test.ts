import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialsPath, fileMode, savedLogin, storeLogin, type SavedLogin } from '../../src/cli/credentials.js';

const homes: string[] = [];
const env = () => {
  const home = mkdtempSync(path.join(tmpdir(), 'kurate-credentials-'));
  homes.push(home);
  return { XDG_CONFIG_HOME: home, HOME: '/nonexistent' } as NodeJS.ProcessEnv;
};
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
const login = (token: string): SavedLogin => ({ token, tokenId: `id-${token}`, email: 'ada@example.org', scopes: ['write'], expiresAt: null, createdAt: '2026-12-02T00:00:00Z' });

describe('the credentials kurate login keeps', () => {
  it('lives in $XDG_CONFIG_HOME/kurate, else ~/.config/kurate (a relative XDG_CONFIG_HOME is ignored, as the spec says)', () => {
    expect(credentialsPath({ XDG_CONFIG_HOME: '/etc/xdg-home', HOME: '/home/ada' })).toBe('/etc/xdg-home/kurate/credentials.json');
    expect(credentialsPath({ HOME: '/home/ada' })).toBe('/home/ada/.config/kurate/credentials.json');
    expect(credentialsPath({ XDG_CONFIG_HOME: 'relative', HOME: '/home/ada' })).toBe('/home/ada/.config/kurate/credentials.json');
  });

  it('keeps one login per server, with mode 0600 in a 0700 folder, and removes the file with the last one', () => {
    const e = env();
    storeLogin('http://localhost:3000', login('kur_a'), e);
    storeLogin('https://wiki.example.org', login('kur_b'), e);
    const file = credentialsPath(e);
    expect(fileMode(file)).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(savedLogin('http://localhost:3000', e)?.token).toBe('kur_a');
    expect(savedLogin('https://wiki.example.org', e)?.token).toBe('kur_b');
    expect(savedLogin('http://elsewhere', e)).toBeNull();
    storeLogin('http://localhost:3000', null, e);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).servers)).toEqual(['https://wiki.example.org']);
    storeLogin('https://wiki.example.org', null, e);
    expect(fileMode(file)).toBeNull();
  });

  it('narrows a file someone widened back to 0600 when it writes, and says so when the file is not JSON', () => {
    const e = env();
    const file = credentialsPath(e);
    storeLogin('http://localhost:3000', login('kur_a'), e);
    chmodSync(file, 0o644);
    storeLogin('http://localhost:3000', login('kur_c'), e);
    expect(fileMode(file)).toBe(0o600);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{ not json');
    expect(() => savedLogin('http://localhost:3000', e)).toThrow(`${file} is not valid JSON: fix or delete it (then run kurate login again).`);
  });
});
