// pino: pretty lines on a terminal, JSON otherwise (for log shippers). Secrets are never logged;
// the redaction list is a second line of defence.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

export function createLogger(level: string, opts: { pretty?: boolean } = {}): Logger {
  const usePretty = opts.pretty ?? process.stdout.isTTY === true;
  const options = {
    level,
    redact: ["sessionToken", "signature", "*.sessionToken", "*.privateKey", "req.headers.cookie", "req.headers.authorization"],
  };
  return usePretty ? pino(options, pretty({ colorize: true, sync: true })) : pino(options);
}
