/* gpuvm graph info: load or generate a graph and describe it. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpuvm/output_file.h"

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/graph.h"
#include "gpuvm/host_memory.h"
#include "gpuvm/run.h"
#include "gpuvm/units.h"

static void graph_usage(FILE *out)
{
	fputs("usage: gpuvm graph info GRAPH [--format mtx|gr|snap] [--symmetrize]\n"
	      "                        [--keep-self-loops] [--keep-duplicates] [--weights]\n"
	      "                        [--no-weights] [--weight-max N] [--seed N] [--json FILE] [-q]\n"
	      "                        [--threads N] [--max-host-memory SIZE | --force]\n"
	      "\n"
	      "Reads or generates the graph the graph kernels (bfs, sssp, ...) run on, as\n"
	      "compressed sparse rows, and prints its vertices, edges and out-degree\n"
	      "statistics (min, max, mean, median, 99th percentile, log2 histogram).\n"
	      "\n"
	      "GRAPH is a file or a generator:\n"
	      "  FILE.mtx          Matrix Market coordinate (pattern/integer/real,\n"
	      "                    general/symmetric; values are the weights)\n"
	      "  FILE.gr           DIMACS shortest path ('p sp N M', 'a U V W')\n"
	      "  FILE (other)      SNAP edge list ('# comment', 'FROM TO [WEIGHT]'); ids are\n"
	      "                    remapped densely by rank (k-th smallest id -> vertex k)\n"
	      "  mtx:F gr:F snap:F force a format whatever the extension\n"
	      "  rmat:scale=S[,ef=E][,seed=N][,a=A,b=B,c=C][,permute=0]\n"
	      "                    Graph500 R-MAT: 2^S vertices, E*2^S edges (E default 16),\n"
	      "                    A,B,C = 0.57,0.19,0.19, labels randomly permuted\n"
	      "\n"
	      "options:\n"
	      "  --format F          mtx, gr (dimacs) or snap, overriding the extension\n"
	      "  --symmetrize        add (v,u) for every (u,v): an undirected graph\n"
	      "  --keep-self-loops   keep (u,u) edges (dropped by default)\n"
	      "  --keep-duplicates   keep repeated edges (dropped by default; a dropped\n"
	      "                      duplicate leaves the least weight)\n"
	      "  --weights           weights required: an unweighted input gets weights\n"
	      "                      uniform in [1, weight-max] from the seed (Galois'\n"
	      "                      graph-convert rule, as for Lonestar sssp inputs)\n"
	      "  --no-weights        ignore the input's weights\n"
	      "  --weight-max N      largest generated weight (default 100)\n"
	      "  --seed N            seed of generated weights and of rmat without seed=\n"
	      "                      (default 1)\n"
	      "  --json FILE         write a JSON object (- for stdout, instead of the text)\n"
	      "  --threads N         generate rmat, and sort the rows of any input, on N\n"
	      "                      host threads (default 1; the same graph at any N;\n"
	      "                      gpuvm sim --threads does the same)\n"
	      "  --max-host-memory SIZE  refuse graphs whose header asks for more host\n"
	      "                      memory than SIZE (default: half of physical memory)\n"
	      "  --force             no host-memory bound\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm graph info roadNet-CA.txt --symmetrize\n"
	      "  gpuvm graph info rmat:scale=22,ef=16,seed=1 --symmetrize --json rmat22.json\n"
	      "  gpuvm graph info USA-road-d.NY.gr --weights\n"
	      "\n"
	      "exit status: 0 ok, 2 bad input (the message names the file, line and problem).\n",
	      out);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static cJSON *info_json(const char *spec, const struct gpuvm_graph *g,
			const struct gpuvm_graph_degree_stats *st, double seconds,
			uint64_t peak_rss_bytes)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "graph", spec);
	cJSON_AddNumberToObject(o, "vertices", (double)g->n_vertices);
	cJSON_AddNumberToObject(o, "edges", (double)g->n_edges);
	cJSON_AddBoolToObject(o, "directed", g->directed);
	cJSON_AddStringToObject(o, "weights",
				!g->weights ? "none" : g->weights_generated ? "generated" : "input");
	cJSON_AddNumberToObject(o, "input_edges", (double)g->input_edges);
	cJSON_AddNumberToObject(o, "self_loops_dropped", (double)g->self_loops_dropped);
	cJSON_AddNumberToObject(o, "duplicates_dropped", (double)g->duplicates_dropped);
	cJSON_AddNumberToObject(o, "degree_min", (double)st->min);
	cJSON_AddNumberToObject(o, "degree_max", (double)st->max);
	cJSON_AddNumberToObject(o, "degree_mean", st->mean);
	cJSON_AddNumberToObject(o, "degree_stddev", st->stddev);
	cJSON_AddNumberToObject(o, "degree_median", (double)st->median);
	cJSON_AddNumberToObject(o, "degree_p99", (double)st->p99);
	cJSON_AddNumberToObject(o, "isolated_vertices", (double)st->isolated);
	cJSON *h = cJSON_AddArrayToObject(o, "degree_histogram");
	for (int k = 0; k < GPUVM_GRAPH_DEGREE_BUCKETS; k++) {
		if (!st->histogram[k])
			continue;
		cJSON *b = cJSON_CreateObject();
		cJSON_AddNumberToObject(b, "degree_lo", k ? (double)(1ull << (k - 1)) : 0);
		cJSON_AddNumberToObject(b, "degree_hi", k ? (double)((1ull << k) - 1) : 0);
		cJSON_AddNumberToObject(b, "vertices", (double)st->histogram[k]);
		cJSON_AddItemToArray(h, b);
	}
	cJSON_AddNumberToObject(o, "csr_bytes", (double)gpuvm_graph_bytes(g));
	cJSON_AddNumberToObject(o, "build_seconds", seconds);
	cJSON_AddNumberToObject(o, "peak_rss_bytes", (double)peak_rss_bytes);
	return o;
}

static void info_text(const char *spec, const struct gpuvm_graph *g,
		      const struct gpuvm_graph_degree_stats *st, double seconds,
		      uint64_t peak_rss_bytes)
{
	char csr[32], rss[32];
	gpuvm_format_size(gpuvm_graph_bytes(g), csr, sizeof csr);
	gpuvm_format_size(peak_rss_bytes, rss, sizeof rss);
	printf("graph       %s\n", spec);
	printf("vertices    %" PRIu32 "\n", g->n_vertices);
	printf("edges       %" PRIu64 " stored (%s), from %" PRIu64 " input edges; dropped %" PRIu64
	       " self loops, %" PRIu64 " duplicates\n",
	       g->n_edges, g->directed ? "directed" : "undirected: both directions",
	       g->input_edges, g->self_loops_dropped, g->duplicates_dropped);
	printf("weights     %s\n",
	       !g->weights ? "none" : g->weights_generated ? "generated from the seed" : "from the input");
	printf("out-degree  min %" PRIu64 ", max %" PRIu64 ", mean %.2f, stddev %.2f, median %" PRIu64
	       ", p99 %" PRIu64 ", isolated %" PRIu64 "\n",
	       st->min, st->max, st->mean, st->stddev, st->median, st->p99, st->isolated);
	printf("histogram   ");
	int first = 1;
	for (int k = 0; k < GPUVM_GRAPH_DEGREE_BUCKETS; k++) {
		if (!st->histogram[k])
			continue;
		if (k <= 1)
			printf("%s%d: %" PRIu64, first ? "" : ", ", k, st->histogram[k]);
		else
			printf("%s%llu-%llu: %" PRIu64, first ? "" : ", ", 1ull << (k - 1),
			       (1ull << k) - 1, st->histogram[k]);
		first = 0;
	}
	printf("\nmemory      CSR %s, peak RSS %s, built in %.2f s\n", csr, rss, seconds);
}

static int graph_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, 0, 'f'},   {"symmetrize", no_argument, 0, 's'},
		{"keep-self-loops", no_argument, 0, 'l'}, {"keep-duplicates", no_argument, 0, 'd'},
		{"weights", no_argument, 0, 'w'},         {"no-weights", no_argument, 0, 'n'},
		{"weight-max", required_argument, 0, 'm'}, {"seed", required_argument, 0, 'S'},
		{"json", required_argument, 0, 'j'},            {"help", no_argument, 0, 'h'},
		{"quiet", no_argument, 0, 'q'},                 {"force", no_argument, 0, 'F'},
		{"max-host-memory", required_argument, 0, 'M'}, {"threads", required_argument, 0, 'N'},
		{0, 0, 0, 0},
	};
	struct gpuvm_graph_opts go = {.seed = 1};
	const char *json = NULL;
	int c, quiet = 0;
	uint64_t u;
	optind = 1;
	struct gpuvm_getopt gg; /* no valued option may repeat (cli_options.h) */
	static const struct gpuvm_cli_output outputs[] = {
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{0},
	};
	gpuvm_getopt_init(&gg, opts, NULL);
	gpuvm_getopt_outputs(&gg, outputs);
	while ((c = gpuvm_getopt(&gg, argc, argv, "q")) != -1) {
		if (c == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm graph: %s\n", gg.why);
			return 2;
		}
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'F':
			gpuvm_host_memory_set_bound(UINT64_MAX);
			break;
		case 'M':
			if (gpuvm_host_memory_parse(optarg, &u)) {
				fprintf(stderr, "gpuvm graph: --max-host-memory: '%s' is not a size of "
						"at least 1MiB\n", optarg);
				return 2;
			}
			gpuvm_host_memory_set_bound(u);
			break;
		case 'f':
			if (!strcmp(optarg, "mtx"))
				go.format = GPUVM_GRAPH_MTX;
			else if (!strcmp(optarg, "gr") || !strcmp(optarg, "dimacs"))
				go.format = GPUVM_GRAPH_DIMACS;
			else if (!strcmp(optarg, "snap"))
				go.format = GPUVM_GRAPH_SNAP;
			else {
				fprintf(stderr, "gpuvm graph: --format: '%s' is not mtx, gr or snap\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			go.symmetrize = true;
			break;
		case 'l':
			go.keep_self_loops = true;
			break;
		case 'd':
			go.keep_duplicates = true;
			break;
		case 'w':
			go.want_weights = true;
			break;
		case 'n':
			go.drop_weights = true;
			break;
		case 'm':
			if (gpuvm_parse_u64(optarg, &u) || u < 1 || u > UINT32_MAX) {
				fprintf(stderr, "gpuvm graph: --weight-max: '%s' is not in 1..4294967295\n",
					optarg);
				return 2;
			}
			go.weight_max = (uint32_t)u;
			break;
		case 'S':
			if (gpuvm_parse_u64(optarg, &go.seed)) {
				fprintf(stderr, "gpuvm graph: --seed: '%s' is not a non-negative integer\n",
					optarg);
				return 2;
			}
			break;
		case 'j':
			json = optarg;
			break;
		case 'N':
			if (gpuvm_parse_threads(optarg, &go.threads)) {
				fprintf(stderr, "gpuvm graph: --threads: '%s' is not a thread count from "
						"1 to %d\n", optarg, GPUVM_MAX_THREADS);
				return 2;
			}
			break;
		case 'h':
			graph_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "gpuvm graph: %s (see gpuvm graph --help)\n", gg.why);
			return 2;
		}
	}
	if (go.want_weights && go.drop_weights) {
		fprintf(stderr, "gpuvm graph: --weights and --no-weights exclude each other\n");
		return 2;
	}
	if (gpuvm_cli_claim_or_report(&gg, "graph"))
		return 2;
	if (optind + 1 != argc) {
		fprintf(stderr, "gpuvm graph info: give exactly one GRAPH (a file or rmat:...)\n\n");
		graph_usage(stderr);
		return 2;
	}
	const char *spec = argv[optind];
	struct gpuvm_graph g;
	struct gpuvm_error err = {{0}};
	if (json && gpuvm_output_check(json, "--json", true, &err)) {
		fprintf(stderr, "gpuvm graph: %s\n", err.msg);
		return 2;
	}
	double t0 = now_seconds();
	if (gpuvm_graph_open(spec, &go, &g, &err)) {
		fprintf(stderr, "gpuvm graph: %s\n", err.msg);
		return 2;
	}
	double seconds = now_seconds() - t0;
	struct rusage ru;
	uint64_t rss = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
	struct gpuvm_graph_degree_stats st;
	gpuvm_graph_degree_stats(&g, &st);
	int rc = 0;
	if (json) {
		cJSON *o = info_json(spec, &g, &st, seconds, rss);
		char *text = o ? cJSON_Print(o) : NULL;
		if (!text || gpuvm_output_write_text(json, text, &err)) {
			fprintf(stderr, "gpuvm graph: %s\n", text ? err.msg : "out of memory");
			rc = GPUVM_EXIT_OUTPUT_FAILED;
		}
		free(text);
		cJSON_Delete(o);
	}
	if (!rc && !quiet && !(json && !strcmp(json, "-")))
		info_text(spec, &g, &st, seconds, rss);
	gpuvm_graph_free(&g);
	return rc;
}

int gpuvm_cmd_graph(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		graph_usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "info") != 0) {
		fprintf(stderr, "gpuvm graph: expected the subcommand 'info'%s%s%s (see gpuvm graph --help)\n",
			argc < 2 ? "" : ", not '", argc < 2 ? "" : argv[1], argc < 2 ? "" : "'");
		return 2;
	}
	return graph_info(argc - 1, argv + 1);
}
