import { describe, expect, it } from 'vitest';
import { lowerRole, roleAtLeast } from '../../src/auth/actor.js';
import { hashToken, scopeCeiling } from '../../src/auth/api-tokens.service.js';
import { safeNext } from '../../src/auth/session-helpers.js';

describe('roles', () => {
  it('orders reader < author < admin; anonymous has none', () => {
    expect(roleAtLeast('admin', 'author')).toBe(true);
    expect(roleAtLeast('author', 'author')).toBe(true);
    expect(roleAtLeast('reader', 'author')).toBe(false);
    expect(roleAtLeast(null, 'reader')).toBe(false);
    expect(lowerRole('admin', 'reader')).toBe('reader');
    expect(lowerRole('author', 'admin')).toBe('author');
  });
});

describe('token scopes', () => {
  it('admin implies write implies read', () => {
    expect(scopeCeiling(['read'])).toBe('reader');
    expect(scopeCeiling(['read', 'write'])).toBe('author');
    expect(scopeCeiling(['write'])).toBe('author');
    expect(scopeCeiling(['admin'])).toBe('admin');
  });

  it('hashes tokens with SHA-256 (hex)', () => {
    expect(hashToken('kur_abc')).toBe('f08dd86737430aac68af5f61a8f272625d47917024e878f9130b2fd0bc1fe1bb');
    expect(hashToken('kur_abc')).not.toBe(hashToken('kur_abd'));
  });
});

describe('where to go after logging in', () => {
  it.each([
    ['/page/home', '/page/home'],
    ['/search?q=a%20b', '/search?q=a%20b'],
    ['https://evil.example/', '/'],
    ['//evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['/\t/evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['/login?next=/x', '/'],
    ['/logout', '/'],
    ['/setup', '/'],
    [undefined, '/'],
    [['/a', '/b'], '/'],
    [`/${'a'.repeat(3000)}`, '/'],
  ])('%o → %s', (input, expected) => {
    expect(safeNext(input)).toBe(expected);
  });
});
