// Translates the SDK's errors into AppError at the exchange boundary. Hyperliquid explains a
// rejection only in text, so the few texts that need a different API code are matched here, by
// prefix, and nowhere else.
import { ApiRequestError, HttpRequestError, TransportError, ValidationError } from "@nktkas/hyperliquid";
import { AppError } from "../errors.js";

/** The first per-order/per-cancel error of a response, or the top-level `status: "err"` text. */
export function exchangeReason(response: unknown): string | undefined {
  const r = response as { status?: string; response?: unknown };
  if (r?.status === "err" && typeof r.response === "string") return r.response;
  const statuses = (r?.response as { data?: { statuses?: unknown[] } } | undefined)?.data?.statuses ?? [];
  for (const s of statuses) {
    if (s && typeof s === "object" && typeof (s as { error?: unknown }).error === "string") return (s as { error: string }).error;
  }
  return undefined;
}

const stripAssetSuffix = (text: string) => text.replace(/\s*asset=\d+\s*$/, "");

export function rejectionError(reason: string): AppError {
  const text = stripAssetSuffix(reason);
  if (/^Insufficient margin/i.test(text)) {
    return new AppError("INSUFFICIENT_BALANCE", `the exchange refused: ${text}`, { details: { reason: text } });
  }
  if (/^Order was never placed, already canceled, or filled/i.test(text)) {
    return new AppError("ORDER_NOT_OPEN", "the order is no longer open", { details: { reason: text } });
  }
  if (/^Must deposit before performing actions/i.test(text)) {
    // The venue takes no action, an agent approval included, from an account that never deposited.
    return new AppError("INSUFFICIENT_BALANCE",
      "the exchange account has never deposited, and the exchange takes no action from it until it has",
      { details: { reason: text }, next: [{ action: "simFaucet" }] });
  }
  if (/User or API Wallet .* does not exist/i.test(text)) {
    return new AppError("AGENT_NOT_APPROVED", "the exchange does not know this agent for the account", {
      details: { reason: text }, next: [{ action: "approveAgent" }],
    });
  }
  return new AppError("ORDER_REJECTED", `the exchange rejected the order: ${text}`, { details: { reason: text } });
}

export function translateExchangeError(err: unknown, what: string): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ApiRequestError) return rejectionError(exchangeReason(err.response) ?? err.message);
  // The SDK's HttpTransport throws this for every failed request: with the response when the exchange
  // answered, else with the cause (its timeout, the caller's abort, fetch's TypeError for a lost connection).
  if (err instanceof HttpRequestError) {
    const status = err.response?.status;
    return new AppError(
      "EXCHANGE_UNAVAILABLE",
      `the exchange did not answer ${what}${status ? ` (HTTP ${status})` : ""}`,
      { retryable: true, cause: err, ...(status === 429 ? { retryAfter: 10 } : {}) },
    );
  }
  if (err instanceof ValidationError) {
    return new AppError("INVALID_INPUT", `the exchange SDK refused the request: ${err.message}`, { cause: err });
  }
  if (err instanceof TransportError || (err as Error)?.name === "AbortError" || (err as Error)?.name === "TimeoutError") {
    return new AppError("EXCHANGE_UNAVAILABLE", `the exchange did not answer ${what}`, { retryable: true, cause: err });
  }
  return new AppError("EXCHANGE_UNAVAILABLE", `unexpected failure talking to the exchange (${what})`, {
    retryable: true,
    cause: err,
  });
}
