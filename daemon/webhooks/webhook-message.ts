// What a delivery says: the stored event as the API renders it (for `json`) and, for the chat
// formats, the one event describer's sentence, told with the vault's limits and its last reading
// before the event, so a pause reads "daily drawdown 5.3% (limit 5%)".
import { unpackEventData } from "../db/event-data.js";
import type { VaultEventRow, VaultRow } from "../db/schema-chain.js";
import type { Executor } from "../db/store.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import * as repo from "../db/webhooks-repo.js";
import type { AlertMessage } from "../alerts/formats.js";
import { describeEvent, type DescribableEvent, type EventContext } from "../events/describe-event.js";
import { shortAddress } from "../lib/figures.js";
import { breachPolicyName } from "../vaults/breach-policies.js";
import { bpsToPercent } from "../vaults/units.js";
import { eventData, rowToEvent } from "../vaults/vault-views.js";

/** Context for the describer: the vault's limits and parties, and the reading at the event. */
async function contextOf(db: Executor, vault: VaultRow, event: VaultEventRow): Promise<EventContext> {
  const ctx: EventContext = {
    vault: {
      maxDrawdown: bpsToPercent(vault.max_drawdown_bps), dailyDrawdown: bpsToPercent(vault.daily_drawdown_bps),
      investor: vault.investor, trader: vault.trader, breachPolicy: breachPolicyName(vault.breach_policy),
    },
  };
  if (event.type !== "Paused") return ctx;
  const reading = await repo.readingBefore(db, vault.num, event.id);
  if (!reading) return ctx;
  const d = eventData("BalanceUpdated", unpackEventData("BalanceUpdated", reading.data));
  return { ...ctx, reading: { drawdown: Number(d.drawdown), dailyDrawdown: Number(d.dailyDrawdown) } };
}

/** The message of one delivery; undefined when its event or vault is no longer stored. */
export async function deliveryMessage(db: Executor, deliveryId: string, eventId: number): Promise<AlertMessage | undefined> {
  const row = await repo.eventById(db, eventId);
  const vault = row && (await vaultsRepo.findVault(db, row.vault));
  if (!row || !vault) return undefined;
  const event = rowToEvent(row);
  const told = describeEvent(event as unknown as DescribableEvent, await contextOf(db, vault, row));
  return {
    title: `${told.title}: vault ${shortAddress(vault.address)}`,
    text: told.sentence,
    json: { deliveryId, eventId: event.id, vault: vault.address, event, title: told.title, text: told.sentence },
  };
}

/** What POST /api/webhooks/:id/test sends: no vault event, but the same envelope a real one has. */
export function testMessage(deliveryId: string, time: number): AlertMessage {
  const text = "A test from tradevault: this endpoint will receive the events of your vaults.";
  return { title: "Webhook test", text, json: { deliveryId, eventId: null, vault: null, event: { type: "WebhookTest", time: Math.floor(time / 1000), data: {} }, title: "Webhook test", text } };
}
