/* Subcommands of the gpuvm CLI; each returns the process exit status
 * (0 ok, 1 runtime failure, 2 bad input). */
#ifndef GPUVM_CLI_COMMANDS_H
#define GPUVM_CLI_COMMANDS_H

int gpuvm_cmd_sim(int argc, char **argv);
int gpuvm_cmd_sweep(int argc, char **argv);
int gpuvm_cmd_presets(int argc, char **argv);
int gpuvm_cmd_presets_import(int argc, char **argv);
int gpuvm_cmd_systems(int argc, char **argv);
int gpuvm_cmd_workloads(int argc, char **argv);
int gpuvm_cmd_bench(int argc, char **argv);
int gpuvm_cmd_trace(int argc, char **argv);
int gpuvm_cmd_probe(int argc, char **argv);
int gpuvm_cmd_graph(int argc, char **argv);
int gpuvm_cmd_validate(int argc, char **argv);
int gpuvm_cmd_stats(int argc, char **argv);
int gpuvm_cmd_calibrate(int argc, char **argv);

#endif
