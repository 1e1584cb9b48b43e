// The answers of the sign-in routes (auth-routes.ts).
import { z } from "zod";
import { unixSeconds } from "../response-parts.js";

export const challenge = z.object({ message: z.string(), nonce: z.string() });
export type Challenge = z.infer<typeof challenge>;

export const login = z.object({ user: z.object({ address: z.string(), sessionToken: z.string() }) });
export type Login = z.infer<typeof login>;

/** GET /api/auth/session: who this request is signed in as; `user: null` without a valid session (never a 401). */
export const currentSession = z.object({
  user: z.object({ address: z.string(), expiresAt: unixSeconds.meta({ description: "when the session expires unless used again" }) }).nullable(),
});
export type CurrentSession = z.infer<typeof currentSession>;

/** POST /api/auth/logout answers an empty object. */
export const loggedOut = z.object({});
