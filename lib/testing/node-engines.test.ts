// `npm install` on Node 20 warns EBADENGINE for every installed package whose
// `engines.node` excludes it (25 packages did: Scalar's and Prisma's `prisma dev`
// server). The lock file records each package's engines: every package this
// platform installs must accept the Node version Tributary runs on.
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface LockPackage { engines?: { node?: string } | string[]; os?: string[]; cpu?: string[]; optional?: boolean }

/** npm's own platform rule: a list names what is allowed, a leading `!` what is not. */
const fits = (list: string[] | undefined, value: string) =>
  !list?.length || (list.some((x) => !x.startsWith('!')) ? list.includes(value) : !list.includes(`!${value}`));

describe('dependencies run on the Node this machine has', () => {
  it('no installed package of the lock file excludes this Node version in engines.node', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
    const own = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(semver.satisfies(process.version, own.engines.node), `package.json engines.node ${own.engines.node}`).toBe(true);
    const refused = Object.entries(lock.packages)
      .filter(([name, p]) => name && fits(p.os, process.platform) && fits(p.cpu, process.arch))
      .filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node && !semver.satisfies(process.version, p.engines.node, { includePrerelease: true }))
      .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')} wants node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });
});
