// Reads Prometheus text exposition into a map of "name{labels}" -> value, for tests that check figures.

export type Samples = Map<string, number>;

export function parseProm(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

/** A sample's value, 0 when absent (a counter that has not moved yet). */
export const val = (s: Samples, key: string): number => s.get(key) ?? 0;

export async function scrape(url: string): Promise<{ samples: Samples; text: string; contentType: string }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`scrape ${url}: ${res.status}`);
  const text = await res.text();
  return { samples: parseProm(text), text, contentType: res.headers.get("content-type") ?? "" };
}
