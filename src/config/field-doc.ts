export { codeOnly, type FieldDoc } from '../internal/field-doc'
