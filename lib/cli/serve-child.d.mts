export declare const ALIVE_MS: number;
export declare function followServe(proc?: NodeJS.Process): void;
export declare function watchChild(child: import('node:child_process').ChildProcess, stuckMs: number, onStuck: (silentMs: number) => void, everyMs?: number): () => void;
