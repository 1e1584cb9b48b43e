// tradevault login | logout | whoami | account.
import { Command } from "commander";
import { contextFor, type CliContext } from "../context.js";
import { CliError, usageError } from "../errors.js";
import { keyValues, printResult, type Io } from "../output.js";
import { askPassword } from "../prompt.js";

interface AccountData {
  address: string;
  session: { expiresAt: number };
  [more: string]: unknown;
}

/** --wallet, else TRADEVAULT_WALLET, else the only wallet there is. */
export function pickWallet(ctx: CliContext, given?: string): string {
  const name = given || ctx.io.env.TRADEVAULT_WALLET;
  if (name) return name;
  const all = ctx.keystore.list();
  if (all.length === 1) return all[0]!.name;
  throw usageError(
    all.length === 0 ? "there is no wallet yet" : "more than one wallet: say which",
    all.length === 0 ? "create one with: tradevault wallet create <name>" : "pass --wallet <name> or set TRADEVAULT_WALLET",
  );
}

const when = (seconds: number) => new Date(seconds * 1000).toISOString();

export function sessionCommands(io: Io): Command[] {
  const login = new Command("login")
    .description("sign in to the daemon with a wallet (EIP-4361 signature; the key never leaves this machine)")
    .option("-w, --wallet <name>", "wallet to sign with")
    .action(async (o: { wallet?: string }, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const name = pickWallet(ctx, o.wallet);
      const address = ctx.keystore.info(name).address; // fails fast on an unknown name
      const api = ctx.api();
      const password = await askPassword(io, ctx.json, `Password of wallet "${name}"`);
      const wallet = await ctx.keystore.unlock(name, password);
      const challenge = await api.request<{ message: string; nonce: string }>("POST", "/api/auth/challenge", { address });
      const signature = await wallet.signMessage(challenge.message);
      const { user } = await api.request<{ user: { address: string; sessionToken: string } }>("POST", "/api/auth/login", {
        address,
        signature,
        nonce: challenge.nonce,
      });
      ctx.sessions.set(ctx.url, { token: user.sessionToken, address: user.address, savedAt: Date.now() });
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
      const account = await ctx.authedApi().request<AccountData>("GET", "/api/account");
      const data = { address: account.address, url: ctx.url, sessionExpiresAt: account.session.expiresAt };
      printResult(io, ctx.json, data, () => `${account.address} on ${ctx.url} (session until ${when(account.session.expiresAt)})`);
    });

  const account = new Command("account")
    .description("show your account on the daemon")
    .action(async (_o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const data = await ctx.authedApi().request<AccountData>("GET", "/api/account");
      const ex = data.exchange as { kind: string; available: boolean; accountValue?: string; withdrawable?: string; marginUsed?: string; error?: string } | undefined;
      const agent = data.agent as { address: string; approved: boolean } | null | undefined;
      printResult(io, ctx.json, data, () =>
        keyValues([
          ["address", data.address],
          ["session until", when(data.session.expiresAt)],
          ["exchange", ex ? `${ex.kind}${ex.available ? "" : ` (unavailable: ${ex.error})`}` : "-"],
          ["account value", ex?.accountValue],
          ["withdrawable", ex?.withdrawable],
          ["margin used", ex?.marginUsed],
          ["agent", agent ? `${agent.address} (${agent.approved ? "approved" : "not approved: tradevault agent approve"})` : "-"],
        ]),
      );
    });

  return [login, logout, whoami, account];
}
