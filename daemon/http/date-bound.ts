// The startDate/endDate query parameters of a page, read by the one date-bound rule (lib/date-bound.ts).
import { z } from "zod";
import { parseDateBound } from "../lib/date-bound.js";

/** A query parameter taking a date bound (the end of a range when `end`), as Unix ms. */
export const dateBound = (end: boolean) =>
  z.string().transform((v, ctx) => {
    const ms = parseDateBound(v, end);
    if (typeof ms === "string") {
      ctx.addIssue({ code: "custom", message: ms });
      return z.NEVER;
    }
    return ms;
  });
