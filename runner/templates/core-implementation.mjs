// toolgate's entry to your implementation of the core contract (written by
// `toolgate init`): the kit's core adapter imports this module and needs
// its four exports (the kit's README says what is expected of each). As
// written it re-exports the kit's own JavaScript implementation, which
// passes the suite: point it at yours.
// TOOLGATE: re-export your implementation's four entry points instead.
export {
  ToolRegistry,
  executeToolCall,
  NonRecoverableToolError,
  ToolContractError,
} from 'toolgate-node-adapter';
