export declare const treeOf: (root: string) => string;
export declare function compileTree(root: string): Promise<{ tree: string; transpiled: number }>;
