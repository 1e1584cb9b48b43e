export declare const CHROMIUM_CANDIDATES: string[];
export declare const CHROMIUM_FIX: string;
export declare function findChromium(env?: NodeJS.ProcessEnv): { path: string } | { problem: string };
