// While the exchange fails every vault's actions (an outage, not one account's problem), retrying
// each paused vault every few seconds would spend the request budget many times over for nothing:
// 30 vaults out of policy would ask for about 13,000 weight a minute against the venue's 1,200, and
// once it answered again they would queue behind their own spent budget. So one vault at a time
// probes the exchange on its fast retry timer and the others wait; the first run that gets an answer
// (it held, or failed for a reason of its own) ends the outage and wakes every waiting vault at once.

export interface OutageGate {
  /** A run failed because the exchange did not answer: true when this vault should retry (it probes), false when it waits. */
  failed(address: string): boolean;
  /** A run got answers from the exchange: the outage, if any, is over. */
  answered(address: string): void;
  /**
   * The probe could not tell (its own earlier order is still in doubt): the probe passes to a waiting
   * vault, which is returned so that it can try now.
   */
  pass(address: string): string | undefined;
  isWaiting(address: string): boolean;
  /** The vault no longer needs enforcing (unpaused, closed). */
  forget(address: string): void;
}

export function createOutageGate(onRecovered: (waiting: string[]) => void): OutageGate {
  let probe: string | undefined;
  const waiting = new Set<string>();

  function recovered() {
    const all = [...waiting];
    waiting.clear();
    probe = undefined;
    if (all.length > 0) onRecovered(all);
  }

  function pass(address: string): string | undefined {
    if (probe !== address) return undefined;
    const next = waiting.values().next();
    if (next.done) return undefined;
    waiting.delete(next.value);
    waiting.add(address);
    probe = next.value;
    return probe;
  }

  return {
    failed(address) {
      if (probe === undefined || probe === address) {
        probe = address;
        waiting.delete(address);
        return true;
      }
      waiting.add(address);
      return false;
    },
    answered() {
      if (probe !== undefined || waiting.size > 0) recovered();
    },
    pass,
    isWaiting: (address) => waiting.has(address),
    forget(address) {
      waiting.delete(address);
      if (probe === address) {
        probe = undefined;
        // Another waiting vault takes over the probing, or nobody is left waiting.
        const next = waiting.values().next();
        if (!next.done) {
          waiting.delete(next.value);
          probe = next.value;
          onRecovered([next.value]);
        }
      }
    },
  };
}
