// Daemon side of login: a bare daemon (sign-in needs nothing else), with commit counting on demand.
import { commitProbe } from "../lib/commit-counter.js";
import { hostDaemon, type HostedDaemon } from "../lib/daemon-host.js";

export function serve() {
  let hosted: HostedDaemon | undefined;
  return {
    async start(): Promise<{ url: string }> {
      hosted = await hostDaemon();
      return { url: hosted.daemon.url };
    },
    ...commitProbe(),
    close: () => hosted?.close(),
  };
}
