// Types of panel-build.mjs (plain JS so postinstall runs it without a TypeScript loader).
export function panelStamp(root?: string): string;
export function panelBuilt(root?: string): boolean;
export function buildPanelIfNeeded(log: (m: string) => void, root?: string, env?: NodeJS.ProcessEnv): boolean;
