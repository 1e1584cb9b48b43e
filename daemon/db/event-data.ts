// How an event's data is stored. Most events keep a JSON object. A balance reading, written once per
// vault per oracle cycle and kept for good, keeps its fields as a JSON array in a fixed order: the
// key names were half of every reading's bytes. Rows written before that (objects) read as they are.
const POSITIONAL: Record<string, readonly string[]> = {
  BalanceUpdated: ["balance", "peakBalance", "dayStartBalance", "observedAt", "drawdownBps", "dailyDrawdownBps"],
};

export function packEventData(type: string, data: Record<string, unknown>): string {
  const keys = POSITIONAL[type];
  // Only a reading with exactly the known fields is packed: nothing can be dropped on the way.
  if (!keys || Object.keys(data).length !== keys.length || !keys.every((k) => k in data)) return JSON.stringify(data);
  return JSON.stringify(keys.map((k) => data[k]));
}

export function unpackEventData(type: string, text: string): Record<string, unknown> {
  const value = JSON.parse(text) as unknown;
  if (!Array.isArray(value)) return value as Record<string, unknown>;
  const keys = POSITIONAL[type];
  if (!keys || keys.length !== value.length) throw new Error(`a ${type} event stored as an array of ${value.length} fields`);
  return Object.fromEntries(keys.map((k, i) => [k, value[i]]));
}
