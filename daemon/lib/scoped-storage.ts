// An AsyncLocalStorage that is switched on only while one of its runs is in flight. On Node 20, while
// any AsyncLocalStorage is enabled, a hook runs for every promise the process makes, whatever it is
// for: about 4 µs of a bare Koa request, and more of the daemon's (bench http-read, RESULTS.md). The
// stores that use this (an open transaction, a leased connection) mean something only inside a run,
// so between runs the hook is off and a read pays nothing for them. Outside every run, getStore() is
// undefined, as it would be anyway for code that did not start inside one; code that kept a store
// across the end of its run must not rely on it (both users check whether theirs is still open).
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
