// Daemon side of login: a bare daemon (sign-in needs nothing else), with commit counting on demand.
// Given `shared` (login-shared), on an external chain and exchange, and a PostgreSQL database when it
// names one.
import { commitProbe } from "../lib/commit-counter.js";
import { hostDaemon, sharedConfig, type HostedDaemon, type SharedSetup } from "../lib/daemon-host.js";

export function serve() {
  let hosted: HostedDaemon | undefined;
  return {
    async start(shared?: SharedSetup): Promise<{ url: string }> {
      hosted = await hostDaemon(shared ? { config: sharedConfig(shared) } : {});
      return { url: hosted.daemon.url };
    },
    ...commitProbe(),
    close: () => hosted?.close(),
  };
}
