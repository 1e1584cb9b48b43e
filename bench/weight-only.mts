import { startWorker } from "./lib/worker-client.js";
for (const priceStream of [true, false]) {
  const worker = await startWorker(new URL("./servers/breach-lab.ts", import.meta.url).pathname);
  try {
    const r = await worker.call("weight", { priceStream, vaults: 100, minutes: 3 }, 30 * 60_000);
    console.log(JSON.stringify({ priceStream, ...(r as object) }));
  } finally {
    await worker.stop();
  }
}
