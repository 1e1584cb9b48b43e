export declare function timingReport(
  results: { file: string; ms: number; cpuMs?: number; passed: number; failed: number; skipped: number }[],
  wallMs: number,
  top?: number,
): string;
