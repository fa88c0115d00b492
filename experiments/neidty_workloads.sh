# The NeiDty experiments' workload specs (sourced by neidty_fig8_11.sh and
# neidty_sensitivity.sh, so both run the same inputs; sizes: docs/neidty.md).
spec_of() {
	case $1 in
	lud) echo "lud:n=512" ;;
	pagerank) echo "pagerank:graph=rmat-14-16" ;;
	atax) echo "atax:variant=polybench-gpu" ;;
	*) echo "$1" ;;
	esac
}
