// A PostgreSQL URL as the maintenance commands print it: the password never reaches a terminal, a
// log or a ticket pasted from them.

export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\/./i.test(target);

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    // Not parseable as a URL: show its scheme and host part at most.
    return url.replace(/\/\/[^@/]*@/, "//***@");
  }
}
