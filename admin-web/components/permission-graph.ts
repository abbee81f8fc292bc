/**
 * Cycle prevention for the nesting editor: a permission may contain another only if that other
 * one does not already (directly or through others) contain it. The server refuses cycles too;
 * the editor simply never offers them.
 */
export interface DefinitionLike {
  id: string;
  contained_permission_ids: string[];
}

/** Every permission reachable from `start` through containment (start included). */
export function reachable(definitions: DefinitionLike[], start: string): Set<string> {
  const byId = new Map(definitions.map((definition) => [definition.id, definition.contained_permission_ids]));
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    const next = queue.pop()!;
    for (const child of byId.get(next) ?? []) {
      if (!seen.has(child)) {
        seen.add(child);
        queue.push(child);
      }
    }
  }
  return seen;
}

/** The ids `target` may contain without making a cycle. */
export function allowedChildren(definitions: DefinitionLike[], target: string): string[] {
  return definitions.map((definition) => definition.id).filter((id) => id !== target && !reachable(definitions, id).has(target));
}
