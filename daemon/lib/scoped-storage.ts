// An AsyncLocalStorage that is switched on only while one of its runs is in flight. On Node 20, while
// any AsyncLocalStorage is enabled, a hook runs for every promise the process makes, whatever it is
// for: about 4 µs of a bare Koa request, and more of the daemon's (bench http-read, RESULTS.md). The
// unit of work's store (the open transaction) means something only inside a transaction, so between
// transactions the hook is off and a read pays nothing for it. Outside every run, getStore() is
// undefined, as it would be anyway for code that did not start inside one; code that kept a store
// across the end of its run must not rely on it (the unit of work checks whether its transaction is
// still open). The PostgreSQL adapter's connection lease keeps a plain AsyncLocalStorage: on
// PostgreSQL the hook stays on, and a read there costs a network round trip that dwarfs it.
import { AsyncLocalStorage } from "node:async_hooks";

export interface ScopedStorage<T> {
  getStore(): T | undefined;
  run<R>(store: T, fn: () => Promise<R>): Promise<R>;
}

export function scopedStorage<T>(): ScopedStorage<T> {
  const als = new AsyncLocalStorage<T>();
  let running = 0;
  return {
    getStore: () => als.getStore(),
    async run(store, fn) {
      running++;
      try {
        return await als.run(store, fn);
      } finally {
        if (--running === 0) als.disable();
      }
    },
  };
}
