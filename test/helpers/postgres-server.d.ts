export declare const POSTGRES_FIX: string;
export declare function findPostgres(env?: NodeJS.ProcessEnv): { bin: string } | { problem: string };
export declare function startPostgresServer(opts?: { timeoutMs?: number }): Promise<{ url: string; stop(): Promise<void> }>;
