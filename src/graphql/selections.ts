import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * The one walker of selection sets through fragments, for everything that reads what an
 * operation selects: its root fields (root-fields.ts), the candidate fields a search must read
 * (execution/candidate-fields.ts), the weight of an operation (operation-weight.ts)
 * and the fragments a persisted operation needs (rest/persisted-operations.ts).
 */

/** The fragment definitions of a document by name, as a Map or as graphql-js's `info.fragments`. */
export type Fragments = ReadonlyMap<string, FragmentDefinitionNode> | Readonly<Record<string, FragmentDefinitionNode>>;

/** A field met by the walker, with the type condition of the innermost fragment it is under (undefined: none). */
export interface SelectedField {
  field: FieldNode;
  typeCondition: string | undefined;
}

export interface WalkOptions {
  /**
   * How a fragment spread more than once is walked: `once` (the default), the first time only
   * (for what only asks which fields are selected); `each`, at every spread (for what counts
   * them, as the weight of an operation does). Either way a fragment is never walked inside
   * itself, which keeps a document with a fragment cycle (which validation refuses) finite.
   */
  spreads?: 'once' | 'each';
  /** Told the name of every fragment spread that the walk follows, known to `fragments` or not. */
  onSpread?: (name: string) => void;
}

/** The fragment definitions of `document` by name. */
export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  return fragments;
}

/**
 * Calls `visit` for each field selected directly in `selectionSets` (not below them), in
 * document order, looking through inline fragments and fragment spreads of any depth, with the
 * type condition of the innermost fragment it is under (undefined: none). An unknown fragment
 * is skipped (validation reports it).
 */
export function forEachSelectedField(
  selectionSets: Iterable<SelectionSetNode | undefined>,
  fragments: Fragments,
  visit: (field: FieldNode, typeCondition: string | undefined) => void,
  options: WalkOptions = {},
): void {
  const once = (options.spreads ?? 'once') === 'once';
  const walked = new Set<string>();
  /** the fragments being walked, outermost first */
  const within = new Set<string>();
  const walk = (selectionSet: SelectionSetNode | undefined, typeCondition: string | undefined) => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        visit(selection, typeCondition);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, selection.typeCondition?.name.value ?? typeCondition);
      } else {
        const name = selection.name.value;
        if (within.has(name) || (once && walked.has(name))) continue;
        walked.add(name);
        options.onSpread?.(name);
        const fragment = fragmentNamed(fragments, name);
        if (fragment === undefined) continue;
        within.add(name);
        walk(fragment.selectionSet, fragment.typeCondition.name.value);
        within.delete(name);
      }
    }
  };
  for (const selectionSet of selectionSets) walk(selectionSet, undefined);
}

/** The fields forEachSelectedField visits, with their type conditions. */
export function selectedFields(
  selectionSets: Iterable<SelectionSetNode | undefined>,
  fragments: Fragments,
  options: WalkOptions = {},
): SelectedField[] {
  const found: SelectedField[] = [];
  forEachSelectedField(
    selectionSets,
    fragments,
    (field, typeCondition) => found.push({ field, typeCondition }),
    options,
  );
  return found;
}

/** Only the field nodes forEachSelectedField visits. */
export function selectedFieldNodes(
  selectionSets: Iterable<SelectionSetNode | undefined>,
  fragments: Fragments,
  options: WalkOptions = {},
): FieldNode[] {
  const found: FieldNode[] = [];
  forEachSelectedField(selectionSets, fragments, (field) => found.push(field), options);
  return found;
}

function fragmentNamed(fragments: Fragments, name: string): FragmentDefinitionNode | undefined {
  // `instanceof Map` narrows a ReadonlyMap to Map<any, any>: each branch states its type.
  if (!(fragments instanceof Map)) {
    const record = fragments as Readonly<Record<string, FragmentDefinitionNode>>;
    return Object.hasOwn(record, name) ? record[name] : undefined;
  }
  return (fragments as ReadonlyMap<string, FragmentDefinitionNode>).get(name);
}

/**
 * The names of the fragments spread anywhere below `selectionSets`, at any depth and through
 * fragments, each once, in the order first met (known to `fragments` or not).
 */
export function spreadFragmentNames(
  selectionSets: Iterable<SelectionSetNode | undefined>,
  fragments: Fragments,
): string[] {
  const names = new Set<string>();
  // Level by level: each fragment is walked at most once per level of fields.
  for (let level = [...selectionSets]; level.length > 0;) {
    const fields = selectedFields(level, fragments, { onSpread: (name) => names.add(name) });
    level = fields.flatMap(({ field }) => (field.selectionSet ? [field.selectionSet] : []));
  }
  return [...names];
}
