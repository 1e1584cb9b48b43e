// tradevault login | logout | whoami | account.
import { Command } from "commander";
import type { Account, Challenge, Login } from "../../daemon/http/responses.js";
import { contextFor, type CliContext } from "../context.js";
import { CliError, usageError } from "../errors.js";
import { keyValues, printResult, type Io } from "../output.js";
import type { WalletInfo } from "../keystore.js";
import { withProgress } from "../progress.js";
import { askPassword } from "../prompt.js";


/** --wallet, else TRADEVAULT_WALLET, else the wallet signed in to this daemon, else the only wallet. */
export function pickWallet(ctx: CliContext, given?: string): string {
  const name = given || ctx.io.env.TRADEVAULT_WALLET;
  if (name) return name;
  const all = ctx.keystore.list();
  const signedIn = sessionWallet(ctx, all);
  if (signedIn) return signedIn;
  if (all.length === 1) return all[0]!.name;
  throw usageError(
    all.length === 0 ? "there is no wallet yet" : "more than one wallet: say which",
    all.length === 0 ? "create one with: npx tradevault wallet create <name>" : "pass --wallet <name>, set TRADEVAULT_WALLET, or sign in with: npx tradevault login --wallet <name>",
  );
}

/** The wallet of the saved session, if it is still in the keystore with the address that signed in. */
function sessionWallet(ctx: CliContext, all: WalletInfo[]): string | undefined {
  const saved = ctx.sessions.get(ctx.url);
  if (!saved) return undefined;
  const same = all.filter((w) => w.address.toLowerCase() === saved.address.toLowerCase());
  // Sessions saved before the name was kept are matched by address, when that is unambiguous.
  return (same.find((w) => w.name === saved.wallet) ?? (same.length === 1 ? same[0] : undefined))?.name;
}

/** Picks the wallet, asks its password and unlocks it (scrypt: about a second) under a spinner. */
export async function unlockWallet(ctx: CliContext, given?: string) {
  const name = pickWallet(ctx, given);
  ctx.keystore.info(name); // an unknown name fails before the password is asked
  const password = await askPassword(ctx.io, ctx.json, `Password of wallet "${name}"`);
  const wallet = await withProgress(ctx.io, ctx.json, `Unlocking wallet "${name}"`, () => ctx.keystore.unlock(name, password));
  return { name, wallet };
}

const when = (seconds: number) => new Date(seconds * 1000).toISOString();

export function sessionCommands(io: Io): Command[] {
  const login = new Command("login")
    .description("sign in to the daemon with a wallet (EIP-4361 signature; the key never leaves this machine)")
    .option("-w, --wallet <name>", "wallet to sign with")
    .action(async (o: { wallet?: string }, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const { name, wallet } = await unlockWallet(ctx, o.wallet);
      const api = ctx.api();
      const { user } = await withProgress(io, ctx.json, `Signing in to ${api.url}`, async () => {
        const challenge = await api.request<Challenge>("POST", "/api/auth/challenge", { address: wallet.address });
        const signature = await wallet.signMessage(challenge.message);
        return api.request<Login>("POST", "/api/auth/login", {
          address: wallet.address,
          signature,
          nonce: challenge.nonce,
        });
      });
      ctx.sessions.set(ctx.url, { token: user.sessionToken, address: user.address, wallet: name, savedAt: Date.now() });
      const data = { address: user.address, url: api.url, wallet: name };
      printResult(io, ctx.json, data, () => `Signed in to ${api.url} as ${user.address} (wallet ${name}).`);
    });

  const logout = new Command("logout")
    .description("end the session on the daemon and forget it here")
    .action(async (_o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const saved = ctx.sessions.get(ctx.url);
      if (saved) {
        try {
          await ctx.authedApi().request("POST", "/api/auth/logout");
        } catch (err) {
          // An already-expired session is as good as logged out; anything else is reported.
          if (!(err instanceof CliError && err.exitCode === 4)) throw err;
        }
        ctx.sessions.delete(ctx.url);
      }
      const data = { url: ctx.url, signedOut: Boolean(saved) };
      printResult(io, ctx.json, data, () => (saved ? `Signed out of ${ctx.url}.` : `Not signed in to ${ctx.url}.`));
    });

  const whoami = new Command("whoami")
    .description("show who you are signed in as")
    .action(async (_o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const account = await ctx.authedApi().request<Account>("GET", "/api/account");
      const data = { address: account.address, url: ctx.url, sessionExpiresAt: account.session.expiresAt };
      printResult(io, ctx.json, data, () => `${account.address} on ${ctx.url} (session until ${when(account.session.expiresAt)})`);
    });

  const account = new Command("account")
    .description("show your account on the daemon")
    .action(async (_o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const data = await ctx.authedApi().request<Account>("GET", "/api/account");
      const { exchange: ex, agent } = data;
      printResult(io, ctx.json, data, () =>
        keyValues([
          ["address", data.address],
          ["session until", when(data.session.expiresAt)],
          ["exchange", ex ? `${ex.kind}${ex.available ? "" : ` (unavailable: ${ex.error})`}` : "-"],
          ["account value", ex?.accountValue],
          ["withdrawable", ex?.withdrawable],
          ["margin used", ex?.marginUsed],
          ["agent", agent ? `${agent.address} (${agent.approved ? "approved" : "not approved: npx tradevault agent approve"})` : "-"],
        ]),
      );
    });

  return [login, logout, whoami, account];
}
