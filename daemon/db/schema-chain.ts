// Tables of the chain module (transaction journal, indexer cursor, vaults, vault events).
export interface ChainTables {}
