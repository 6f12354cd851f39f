// Types of cli-build.mjs (plain JS so bin/tributary.mjs runs it without a TypeScript loader).
export function findRoot(from?: string): string;
export function cliPaths(root?: string): { dir: string; entry: string; stampFile: string };
export function filesStamp(root: string, inputs: readonly string[], skipDirs?: readonly string[], seen?: Map<string, string>): string;
export function sourceStamp(root?: string, seen?: Map<string, string>): string;
export function builtStamp(root?: string): string | null;
export function freshCliEntry(root?: string): string | null;
export function freshCliEntryForHelp(root?: string): string | null;
export function buildCli(root?: string): Promise<string>;
