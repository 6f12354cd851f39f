import { snakeCase } from './identifiers';

/**
 * How a source column's name becomes the lake column's name (tables.json
 * `naming`, top level or per entry), as dlt's naming conventions do:
 * - `preserve` (the default): as the source reports it — PostgreSQL's lower
 *   case (`film_id`), Oracle's upper case (`FILM_ID`), a quoted name verbatim.
 *   A PostgreSQL or dbt user queries the lake with the names they know, and
 *   an Oracle source keeps Oracle's;
 * - `upper` (Tributary's default before issue 21): plain identifiers
 *   upper-cased, as Oracle folds them (`film_id` → `FILM_ID`);
 * - `lower`: plain identifiers lower-cased (`FILM_ID` → `film_id`);
 * - `snake_case`: lower snake case (`FilmId`, `FILM_ID` → `film_id`).
 * Under `upper` and `lower` a name that is not a plain identifier (a quoted
 * `"Film Id"`) is kept as the source spells it. The injected columns
 * (BRANCH_ID, insert_at, Recorded_updated_at) keep their names under every
 * convention. An existing lake column matching a new name without regard to
 * case keeps its spelling (etl's schema union), so a lake loaded as `FILM_ID`
 * goes on receiving `film_id` whatever the convention.
 */
export const NAMINGS = ['preserve', 'upper', 'lower', 'snake_case'] as const;
export type Naming = (typeof NAMINGS)[number];
/**
 * (Default: preserve.) It names the columns of tables created from now on; a
 * lake created under `upper` keeps its `FILM_ID` columns, since every
 * source→lake lookup matches names without regard to case (lib/sources/lake-names.ts).
 */
export const DEFAULT_NAMING: Naming = 'preserve';

const PLAIN = /^[A-Za-z_][A-Za-z0-9_$#]*$/;

/** The lake column name of a source column named `name` (as the source spells it) under `naming`. */
export function applyNaming(name: string, naming: Naming): string {
  switch (naming) {
    case 'preserve': return name;
    case 'upper': return PLAIN.test(name) ? name.toUpperCase() : name;
    case 'lower': return PLAIN.test(name) ? name.toLowerCase() : name;
    case 'snake_case': return snakeCase(name) || name;
  }
}
