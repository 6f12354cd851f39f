export declare const ALIVE_MS: number;
export declare function followServe(proc?: NodeJS.Process): void;
