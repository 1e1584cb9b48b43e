// A test daemon's settings for a machine busy with other work. Its exchange is the sim in the same
// process, which answers as soon as the process gets the CPU: the default 10 s is a bound load can
// break, so tests that are not about the timeout give it the config's limit (a test of the timeout
// sets its own).
import type { ConfigInput } from "../../daemon/config.js";

export const BUSY_MACHINE = { exchangeTimeout: 120 } satisfies Partial<ConfigInput>;

/** The same as tradevaultd's flags. */
export const BUSY_MACHINE_FLAGS = ["--exchange-timeout", String(BUSY_MACHINE.exchangeTimeout)];
