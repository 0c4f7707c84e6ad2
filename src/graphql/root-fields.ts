import { Kind, type DocumentNode, type FieldNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * The names of the root fields an operation selects (through fragments too), in document
 * order and without repeats; aliases are ignored. `__typename` and introspection fields count.
 */
export function rootFieldNames(operation: OperationDefinitionNode, document: DocumentNode): string[] {
  return [...new Set(rootFields(operation, document).map((field) => field.name.value))];
}

/** Every root field node of the operation, aliases included (a field selected twice under two aliases is two). */
export function rootFields(operation: OperationDefinitionNode, document: DocumentNode): FieldNode[] {
  const fragments = new Map(
    document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])),
  );
  const fields: FieldNode[] = [];
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        // A validated document has no fragment cycles; the guard only keeps a bad one finite.
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return fields;
}
