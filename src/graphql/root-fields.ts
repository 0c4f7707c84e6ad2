import type { DocumentNode, FieldNode, OperationDefinitionNode } from 'graphql';
import { fragmentsOf, selectedFieldNodes } from './selections';

/**
 * The names of the root fields an operation selects (through fragments too), in document
 * order and without repeats; aliases are ignored. `__typename` and introspection fields count.
 */
export function rootFieldNames(operation: OperationDefinitionNode, document: DocumentNode): string[] {
  return [...new Set(rootFields(operation, document).map((field) => field.name.value))];
}

/** Every root field node of the operation, aliases included (a field selected twice under two aliases is two). */
export function rootFields(operation: OperationDefinitionNode, document: DocumentNode): FieldNode[] {
  return selectedFieldNodes([operation.selectionSet], fragmentsOf(document));
}
