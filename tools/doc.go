// Package tools says what each of nod's task tools means: its arguments
// read and checked, and the change it makes to a task.
//
// The agent reads a tool call into changes (Args.Changes) and proposes or
// applies them; package confirm rebuilds a stored change item (Parse) to
// apply what the person confirms, so that what is applied is what they
// were shown. Which tool needs whose confirmation is the agent's registry,
// not this package's.
package tools
