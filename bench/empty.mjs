// An empty script: what a bare `node` costs to start and exit, the floor for any command.
