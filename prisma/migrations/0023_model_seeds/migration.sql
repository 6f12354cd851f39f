-- Seeds (dbt's `seeds/*.csv`) are nodes of their own: `tributary models seed`
-- records them with command 'seed', and `build` records them with kind 'seed'.
ALTER TABLE model_results DROP CONSTRAINT IF EXISTS model_results_command_check;
ALTER TABLE model_results ADD CONSTRAINT model_results_command_check CHECK (command IN ('run', 'test', 'build', 'seed'));
ALTER TABLE model_results DROP CONSTRAINT IF EXISTS model_results_kind_check;
ALTER TABLE model_results ADD CONSTRAINT model_results_kind_check CHECK (kind IN ('model', 'test', 'seed'));
