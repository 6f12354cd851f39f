import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors';
import type { ProjectFiles } from './project';

/**
 * The one place the models engine touches the project folder: read its
 * files, write one file, write compiled SQL under target/. Paths from users
 * (the panel's editor) are checked to stay inside the project.
 */

const EDITABLE = /^(models\/[A-Za-z0-9_\-/]+\.(sql|ya?ml|md)|seeds\/[A-Za-z0-9_\-/]+\.(csv|ya?ml)|tests\/[A-Za-z0-9_\-/]+\.sql|macros\/[A-Za-z0-9_\-/]+\.(sql|md)|dbt_project\.yml|packages\.yml|dependencies\.yml)$/;

export function readProjectFiles(root: string): ProjectFiles {
  const out: ProjectFiles = {};
  if (!fs.existsSync(root)) throw new AppError('not_found', `models: project folder ${root} does not exist`);
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || (rel === '' && (e.name === 'target' || e.name === 'logs'))) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.isFile() && EDITABLE.test(r)) out[r] = fs.readFileSync(path.join(dir, e.name), 'utf8');
    }
  };
  walk(root, '');
  return out;
}

/** Refuse paths that are not project files (`..`, absolute, other extensions). */
export function checkProjectPath(rel: string): string {
  const norm = path.posix.normalize(rel.replace(/\\/g, '/'));
  if (norm !== rel || !EDITABLE.test(norm) || norm.split('/').some((s) => s === '..' || s === '')) {
    throw new AppError('validation', `models: ${JSON.stringify(rel)} is not a project file path (models/….sql|yml|md, seeds/….csv|yml, tests/….sql, macros/….sql|md, dbt_project.yml, packages.yml, dependencies.yml)`, { field: 'path' });
  }
  return norm;
}

/** Write one project file atomically (temp file + rename). */
export function writeProjectFile(root: string, rel: string, text: string): void {
  const p = path.join(root, checkProjectPath(rel));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const tmp = `${p}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, p);
}

export function deleteProjectFile(root: string, rel: string): void {
  const p = path.join(root, checkProjectPath(rel));
  if (!fs.existsSync(p)) throw new AppError('not_found', `models: no file ${rel}`, { field: 'path' });
  fs.rmSync(p);
}

/**
 * Compiled SQL in dbt's layout, `target/compiled/<project>/<path>` (compile.ts's
 * compiledPath). The project's name comes from dbt_project.yml: one that
 * would lead outside `target/compiled/` is refused.
 */
export function writeCompiled(root: string, project: string, files: { path: string; sql: string }[]): string[] {
  const out: string[] = [];
  const base = path.join(root, 'target', 'compiled');
  for (const f of files) {
    const p = path.resolve(base, project, f.path);
    if (!p.startsWith(base + path.sep)) throw new AppError('validation', `models: ${project}/${f.path} is not a path below target/compiled/ (is dbt_project.yml's name a plain name?)`);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.sql.endsWith('\n') ? f.sql : f.sql + '\n');
    out.push(path.relative(root, p));
  }
  return out;
}

/** A dbt artifact (`manifest.json`, `run_results.json`) under `target/`, replaced atomically. */
export function writeArtifact(root: string, name: string, content: unknown): string {
  const p = path.join(root, 'target', name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const tmp = `${p}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(content, null, 2) + '\n');
  fs.renameSync(tmp, p);
  return path.relative(root, p);
}
