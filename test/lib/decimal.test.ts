import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  canonicalDecimal,
  compareDecimal,
  decimalPlaces,
  divRound,
  fixed,
  formatDecimal,
  isDecimalString,
  isValidPrice,
  isValidSize,
  maxPriceDecimals,
  numberLiteralToDecimal,
  numberToDecimalString,
  parseDecimal,
  rescale,
  roundPrice,
  significantFigures,
  subtractDecimal,
  toDecimalString,
  type Rounding,
} from "../../daemon/lib/decimal.js";

test("parseDecimal scales exactly and refuses silent truncation", () => {
  assert.is(parseDecimal("1.5", 6), 1_500_000n);
  assert.is(parseDecimal("-0.000001", 6), -1n);
  assert.is(parseDecimal("100", 0), 100n);
  assert.is(parseDecimal("007.10", 2), 710n);
  assert.throws(() => parseDecimal("1.0000001", 6), /rounding/);
  assert.is(parseDecimal("1.0000005", 6, "half-up"), 1_000_001n);
  assert.is(parseDecimal("1.0000005", 6, "half-even"), 1_000_000n);
  for (const bad of ["", "1e5", "1.", ".5", "+1", " 1", "0x10", "1,5", "NaN"]) {
    assert.throws(() => parseDecimal(bad, 6), /not a decimal/, bad);
  }
});

test("formatDecimal is canonical: trailing zeros stripped, no -0", () => {
  assert.is(formatDecimal(1_500_000n, 6), "1.5");
  assert.is(formatDecimal(100_000_000n, 6), "100");
  assert.is(formatDecimal(1n, 6), "0.000001");
  assert.is(formatDecimal(-1n, 6), "-0.000001");
  assert.is(formatDecimal(0n, 6), "0");
  assert.is(formatDecimal(-0n, 6), "0");
  assert.is(formatDecimal(123n, 0), "123");
  assert.is(canonicalDecimal("100.0"), "100");
  assert.is(canonicalDecimal("25.20"), "25.2");
  assert.is(canonicalDecimal("-0.000"), "0");
  assert.is(canonicalDecimal("0001.0100"), "1.01");
});

test("divRound honours every rounding mode on both signs", () => {
  const cases: [bigint, bigint, Record<Rounding, bigint>][] = [
    [7n, 2n, { down: 3n, up: 4n, floor: 3n, ceil: 4n, "half-up": 4n, "half-even": 4n }],
    [5n, 2n, { down: 2n, up: 3n, floor: 2n, ceil: 3n, "half-up": 3n, "half-even": 2n }],
    [-5n, 2n, { down: -2n, up: -3n, floor: -3n, ceil: -2n, "half-up": -3n, "half-even": -2n }],
    [-7n, 3n, { down: -2n, up: -3n, floor: -3n, ceil: -2n, "half-up": -2n, "half-even": -2n }],
    [8n, -3n, { down: -2n, up: -3n, floor: -3n, ceil: -2n, "half-up": -3n, "half-even": -3n }],
    [6n, 3n, { down: 2n, up: 2n, floor: 2n, ceil: 2n, "half-up": 2n, "half-even": 2n }],
  ];
  for (const [n, d, expected] of cases) {
    for (const [mode, want] of Object.entries(expected)) {
      assert.is(divRound(n, d, mode as Rounding), want, `${n}/${d} ${mode}`);
    }
  }
  assert.throws(() => divRound(1n, 0n, "down"), /division by zero/);
});

test("rescale widens freely and narrows only with a rounding mode", () => {
  assert.is(rescale(15n, 1, 3), 1500n);
  assert.is(rescale(1500n, 3, 1), 15n);
  assert.throws(() => rescale(1501n, 3, 1), /rounding/);
  assert.is(rescale(1551n, 3, 1, "half-up"), 16n);
});

test("fixed-point multiply and divide round only where told", () => {
  const F = fixed(18);
  const px = F.parse("60000.5");
  const sz = F.parse("0.00123");
  assert.is(F.format(F.mul(px, sz, "down")), "73.800615");
  assert.is(F.format(F.div(F.parse("1"), F.parse("3"), "down")), "0.333333333333333333");
  assert.is(F.format(F.div(F.parse("2"), F.parse("3"), "half-up"), 6), "0.666667");
  assert.is(F.format(F.parse("-2.5"), 0, "half-even"), "-2");
  assert.is(F.format(F.round(F.parse("1.23456"), 2, "ceil")), "1.24");
  assert.is(F.fromInt(3), 3n * F.one);
});

test("decimal inspection helpers", () => {
  assert.is(decimalPlaces("1.50"), 1);
  assert.is(decimalPlaces("100"), 0);
  assert.is(significantFigures("0.00120"), 2);
  assert.is(significantFigures("1234.5"), 5);
  assert.is(significantFigures("1200"), 2);
  assert.is(compareDecimal("1.10", "1.1"), 0);
  assert.is(compareDecimal("-1", "0.5"), -1);
  assert.is(compareDecimal("10", "9.999"), 1);
  assert.is(subtractDecimal("0.03", "0.01"), "0.02");
  assert.is(subtractDecimal("1.50", "1.5"), "0");
  assert.is(subtractDecimal("0.1", "0.25"), "-0.15");
  assert.ok(isDecimalString("-12.50"));
  assert.not.ok(isDecimalString("1e5"));
});

test("numbers from JSON become their shortest exact decimal text", () => {
  assert.is(numberToDecimalString(1e-7), "0.0000001");
  assert.is(numberToDecimalString(0.1), "0.1");
  assert.is(numberToDecimalString(1.5e21), "1500000000000000000000");
  assert.is(numberToDecimalString(-2.5e-3), "-0.0025");
  assert.is(numberToDecimalString(1000), "1000");
  assert.throws(() => numberToDecimalString(Number.NaN), /finite/);
  assert.is(toDecimalString(" 12.50 "), "12.5");
  assert.is(toDecimalString(12.5), "12.5");
  assert.throws(() => toDecimalString(true), /not a decimal/);
});

test("a JSON number literal becomes its exact value as decimal text, nothing rounded", () => {
  assert.is(numberLiteralToDecimal("0.00999999999999999999"), "0.00999999999999999999");
  assert.is(numberLiteralToDecimal("9007199254740993"), "9007199254740993");
  assert.is(numberLiteralToDecimal("29999.99999999999999"), "29999.99999999999999");
  assert.is(numberLiteralToDecimal("1e-7"), "0.0000001");
  assert.is(numberLiteralToDecimal("1.5E+3"), "1500");
  assert.is(numberLiteralToDecimal("12.50"), "12.5");
  assert.is(numberLiteralToDecimal("-0"), "0");
  assert.is(numberLiteralToDecimal("-2.5e-3"), "-0.0025");
  assert.is(numberLiteralToDecimal("1e1000").length, 1001);
  assert.throws(() => numberLiteralToDecimal("1e1001"), /exponent out of range/);
  assert.throws(() => numberLiteralToDecimal("1e-99999999999"), /exponent out of range/);
  for (const bad of ["", "+1", ".5", "1.", "0x10", "1e", "NaN", " 1"]) assert.throws(() => numberLiteralToDecimal(bad), /not a number/, bad);
});

test("Hyperliquid price rule: 5 significant figures, 6 - szDecimals decimals, integers always", () => {
  // Examples from the tick-and-lot-size page (HYPERLIQUID.md section 5).
  assert.ok(isValidPrice("1234.5", 0));
  assert.not.ok(isValidPrice("1234.56", 0));
  assert.ok(isValidPrice("0.001234", 0));
  assert.not.ok(isValidPrice("0.0012345", 0));
  assert.ok(isValidPrice("0.01234", 1));
  assert.not.ok(isValidPrice("0.012345", 1));
  assert.ok(isValidPrice("123456", 5));
  assert.not.ok(isValidPrice("12345.6", 5));
  assert.ok(isValidPrice("60000.0", 5), "trailing zeros do not count");
  assert.not.ok(isValidPrice("150.123", 2), "SOL allows 4 decimals but only 5 significant figures");
  assert.ok(isValidPrice("150.12", 2));
  assert.not.ok(isValidPrice("0", 2));
  assert.not.ok(isValidPrice("-1", 2));
  assert.is(maxPriceDecimals(5), 1);
  assert.is(maxPriceDecimals(2, "spot"), 6);
});

test("Hyperliquid size rule: at most szDecimals decimals and positive", () => {
  assert.ok(isValidSize("1.001", 3));
  assert.not.ok(isValidSize("1.0001", 3));
  assert.ok(isValidSize("2", 0));
  assert.ok(isValidSize("1.10", 1));
  assert.not.ok(isValidSize("0", 3));
  assert.not.ok(isValidSize("abc", 3));
});

test("roundPrice lands on valid values in the asked direction", () => {
  assert.is(roundPrice("60123.456", 5, "down"), "60123");
  assert.is(roundPrice("60123.5", 5, "half-up"), "60124");
  assert.is(roundPrice("123456.7", 5, "half-up"), "123457", "integers keep every digit");
  assert.is(roundPrice("3000.123", 4, "up"), "3000.2");
  assert.is(roundPrice("150.126", 2, "half-up"), "150.13");
  assert.is(roundPrice("0.00123456", 0, "down"), "0.001234");
  assert.is(roundPrice("9.99996", 0, "half-up"), "10");
  assert.is(roundPrice("1.23456789", 4, "ceil"), "1.24");
  assert.throws(() => roundPrice("0.0000001", 0, "down"), /zero/);
  for (const px of ["60123.456", "0.00123456", "9.99996", "150.126", "3.14159"]) {
    for (const mode of ["down", "up", "half-up"] as const) {
      assert.ok(isValidPrice(roundPrice(px, 2, mode), 2), `${px} ${mode}`);
    }
  }
});

test.run();
