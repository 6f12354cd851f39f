import { genericTestSql } from './generic-tests';
import { lookupVar, relationName, sourceIdent } from './project';
import { renderTemplate } from './template';
import type { ModelNode, Project, TestNode } from './types';

export interface RenderEnv {
  /** Database of the models' relations. */
  database: string;
  /** The table function reading a lake table (already resolved). */
  source(ident: string): string;
}

/** A model's SQL as it will run; `incremental` is what is_incremental() answers. */
export function renderModel(p: Pick<Project, 'macros' | 'vars'>, m: ModelNode, env: RenderEnv, incremental = false): string {
  return renderTemplate(m.raw, {
    ref: (n) => relationName(env.database, n),
    source: (a, b) => env.source(sourceIdent(a, b)),
    config: () => '',
    var: (n, d) => lookupVar(p.vars, n, d, d !== undefined),
    is_incremental: () => incremental && m.config.materialized === 'incremental',
    this: relationName(env.database, m.name),
  }, { file: m.path, preamble: p.macros }).trim();
}

/** A test's query returning its failing rows. */
export function renderTest(p: Pick<Project, 'macros' | 'vars'>, t: TestNode, env: RenderEnv): string {
  if (t.generic) return genericTestSql(t, (n) => relationName(env.database, n));
  return renderTemplate(t.raw ?? '', {
    ref: (n) => relationName(env.database, n),
    source: (a, b) => env.source(sourceIdent(a, b)),
    config: () => '',
    var: (n, d) => lookupVar(p.vars, n, d, d !== undefined),
    is_incremental: () => false,
    this: relationName(env.database, t.name),
  }, { file: t.path, preamble: p.macros }).trim().replace(/[\s;]+$/, '');
}
