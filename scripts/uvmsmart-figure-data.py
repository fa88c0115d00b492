#!/usr/bin/env python3
"""The data behind Ganguly et al.'s IPDPS'20 figures, as its authors
extracted it: benchmarks/Results/Page_Migration_Pinning/plots/
ExtractedResultsNPlots.xlsx of DebashisGanguly/gpgpu-sim_UVMSmart (the
paper's simulator and artifact). Each sheet holds one figure. Its first
block (rows 1-9) holds the raw values: kernel time in us, or thrashed
pages. Row 1 names the schemes and column B the workloads. The second
block holds the same values normalised; it is not read.

  scripts/uvmsmart-figure-data.py XLSX > experiments/ganguly_figures.csv

The CSV has one line per value: sheet, workload, scheme, value and the
cell it came from. experiments/fidelity_collect.py takes the targets of
the Ganguly rows from it. The reader uses only the standard library: an
xlsx file is a zip of XML parts."""
import csv
import re
import sys
import xml.etree.ElementTree as ET
import zipfile

NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def cells(z, part, strings):
    """{cell reference: text} of one worksheet part."""
    out = {}
    for c in ET.fromstring(z.read(part)).iter(NS + "c"):
        v = c.find(NS + "v")
        if v is None or v.text is None:
            continue
        out[c.get("r")] = strings[int(v.text)] if c.get("t") == "s" else v.text
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: uvmsmart-figure-data.py ExtractedResultsNPlots.xlsx > ganguly_figures.csv")
    with zipfile.ZipFile(sys.argv[1]) as z:
        strings = ["".join(t.text or "" for t in si.iter(NS + "t"))
                   for si in ET.fromstring(z.read("xl/sharedStrings.xml")).iter(NS + "si")]
        rels = {r.get("Id"): r.get("Target") for r in ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))}
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(["sheet", "workload", "scheme", "value", "cell"])
        for sh in ET.fromstring(z.read("xl/workbook.xml")).iter(NS + "sheet"):
            part = "xl/" + rels[sh.get(REL + "id")].lstrip("/").replace("xl/", "", 1)
            cs = cells(z, part, strings)
            schemes = {col: cs["%s1" % col] for col in "CDEFG" if "%s1" % col in cs}
            for row in range(2, 10):
                wl = cs.get("B%d" % row)
                if not wl:
                    continue
                for col, scheme in schemes.items():
                    ref = "%s%d" % (col, row)
                    if ref in cs and re.match(r"^-?[0-9.]+(E-?[0-9]+)?$", cs[ref]):
                        w.writerow([sh.get("name"), wl, scheme, cs[ref], ref])


if __name__ == "__main__":
    main()
