// SHA-256 as lowercase hex: how the daemon stores secrets it only needs to recognise (session tokens,
// event tickets), fingerprints requests, and checks that a file is the one it wrote.
import { createHash } from "node:crypto";

export const sha256Hex = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");
