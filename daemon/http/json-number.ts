// Request bodies parsed so that each number keeps the text it was sent as. JSON.parse turns
// 0.00999999999999999999 into 0.01 and 9007199254740993 into 9007199254740992 before any schema looks,
// so a value the same text sent as a string would have refused was quietly rounded and accepted. Here
// a number stays a JsonNumber (its text) until the field's schema says what it must be: the exact
// decimal (schemas.ts `decimalInput`) or a safe integer (`integerField`).
import { parse } from "lossless-json";

/** A number from a request body, as sent: JSON number grammar ("12.50", "1e-7", "-0"). */
export class JsonNumber {
  // Private, so a JsonNumber where an object is expected has no keys for a schema to misreport.
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  get text(): string {
    return this.#text;
  }
}

/**
 * Where a schema looked inside a number as if it were an object (`{"profitShare": 5}`), the path to
 * that number; undefined when the issue is not about one.
 */
export function numberTakenForObject(value: unknown, path: readonly PropertyKey[]): PropertyKey[] | undefined {
  let at: unknown = value;
  for (let i = 0; i < path.length; i++) {
    if (at instanceof JsonNumber) return path.slice(0, i);
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[path[i]!];
  }
  return undefined;
}

/** What co-body's strict mode took: an object or an array, after optional whitespace. */
const OBJECT_OR_ARRAY = /^[\x20\x09\x0a\x0d]*[[{]/;

/**
 * Parses a request body; throws SyntaxError for text that is not JSON or not an object or array. An
 * empty body is {}. A repeated key keeps its last value, as JSON.parse does.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  if (!OBJECT_OR_ARRAY.test(text)) throw new SyntaxError("a JSON object or array is expected");
  return parse(text, null, {
    parseNumber: (literal) => new JsonNumber(literal),
    onDuplicateKey: ({ newValue }) => newValue,
  });
}
