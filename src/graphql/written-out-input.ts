import { Kind, OperationTypeNode, parse, visit, type DocumentNode, type ValueNode } from 'graphql';
import { rootFields } from './root-fields';

/**
 * The mutation root fields of `document` whose arguments hold a value written out in the
 * document: a string or a number (an enum value, a boolean or null says nothing of a person).
 * A document that is stored (a trusted document is kept for as long as it is published) must
 * take what a mutation writes, a registration's identity data above all, from its variables.
 */
export function mutationFieldsWithWrittenOutInput(document: DocumentNode): string[] {
  const fields: string[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation !== OperationTypeNode.MUTATION) continue;
    for (const field of rootFields(definition, document)) {
      if ((field.arguments ?? []).some((argument) => holdsWrittenOutValue(argument.value)))
        fields.push(field.name.value);
    }
  }
  return [...new Set(fields)];
}

/** Whether the text of a document has a mutation whose input is written out (false for a text that does not parse). */
export function hasWrittenOutMutationInput(body: string): boolean {
  try {
    return mutationFieldsWithWrittenOutInput(parse(body, { noLocation: true })).length > 0;
  } catch {
    return false;
  }
}

function holdsWrittenOutValue(value: ValueNode): boolean {
  let found = false;
  visit(value, {
    StringValue: () => void (found = true),
    IntValue: () => void (found = true),
    FloatValue: () => void (found = true),
  });
  return found;
}
