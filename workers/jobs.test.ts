import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJobRegistry } from '../lib/jobs';
import { jobDefinitions } from './jobs';

const README = fs.readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');

/** The job kinds the README promises: the backticked names in its "can also be started from … `POST /api/v1/jobs` (…)" sentence. */
function readmeKinds(): string[] {
  const m = /started from the panel or `POST \/api\/v1\/jobs` \(([^)]*)\)/.exec(README);
  if (!m) throw new Error('README: the sentence listing the job kinds was not found');
  return [...m[1].matchAll(/`([a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*)`/g)].map((x) => x[1]);
}

describe('registered job kinds', () => {
  it('are exactly the kinds the README lists', () => {
    // Internal kinds (a run's units) are queued by their coordinator, never started by a user.
    expect(jobDefinitions.filter((d) => !d.internal).map((d) => d.kind).sort()).toEqual(readmeKinds().sort());
  });

  it('are unique, each with a description and a payload schema', () => {
    const reg = createJobRegistry(jobDefinitions);
    for (const d of reg.all) {
      expect(d.description.length, d.kind).toBeGreaterThan(10);
      expect(typeof d.payload.safeParse, d.kind).toBe('function');
    }
    expect(() => createJobRegistry([...jobDefinitions, jobDefinitions[0]])).toThrow(/defined twice/);
  });
});
