"""The dataset registry: canonical source, file format and published statistics for every data set.

Statistics are what a download must match (``None`` = not checked). ``stats_source`` says where each
number comes from: a published table, or a count of the canonical file itself where no table exists.
Edges are undirected pairs without self-loops, except for directed sets, where they are directed pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TU_URL = "https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"
HETERO_URL = "https://raw.githubusercontent.com/yandex-research/heterophilous-graphs/main/data/{file}.npz"
PLANETOID_URL = "https://raw.githubusercontent.com/kimiyoung/planetoid/master/data/ind.{name}.{part}"
SHCHUR_URL = "https://raw.githubusercontent.com/shchur/gnn-benchmark/master/data/npz/{file}.npz"
WIKICS_URL = "https://github.com/pmernyei/wiki-cs-dataset/raw/master/dataset/data.json"
OGB_URL = "http://snap.stanford.edu/ogb/data/nodeproppred/{file}.zip"
BENCHMARKING_GNNS_URL = "https://data.pyg.org/datasets/benchmarking-gnns/{file}.zip"
OGB_GRAPH_URL = "http://snap.stanford.edu/ogb/data/graphproppred/csv_mol_download/{file}.zip"
# OGB-LSC releases: the address the ogb package (1.3.6, ogb/lsc/pcqm4mv2.py) downloads from; the older Stanford copy
# is http://ogb-data.stanford.edu/data/lsc/{file}.zip
OGB_LSC_URL = "https://dgl-data.s3-accelerate.amazonaws.com/dataset/OGB-LSC/{file}.zip"
ATTRIBUTION_URL = (
    "https://raw.githubusercontent.com/google-research/graph-attribution/main/data/{name}/{name}_smiles.csv"
)

PLANETOID_PARTS = ("x", "y", "tx", "ty", "allx", "ally", "graph", "test.index")


@dataclass(frozen=True)
class Stats:
    """Published counts a download must match; ``None`` leaves a count unchecked."""

    graphs: int | None = None
    nodes: int | None = None
    edges: int | None = None
    classes: int | None = None
    class_counts: tuple[int, ...] | None = None


@dataclass(frozen=True)
class DatasetSpec:
    """One registry entry.

    ``files`` are paths relative to a mirror root (and the names under ``data/raw/<name>/``);
    ``urls`` give the canonical address of each file in the same order.
    """

    name: str
    format: str  # tu | heterophilous | planetoid | gnn_benchmark | wikics | ogb_nodeprop | ogb_graphprop
    #              | benchmarking_gnns | ogb_lsc_smiles (download-only, no reader: smiles_csv)
    task: str  # graph | node
    files: tuple[str, ...]
    urls: tuple[str, ...]
    stats: Stats
    stats_source: str
    directed: bool = False
    sha256: dict[str, str] = field(default_factory=dict)
    packaged: tuple[str, str] | None = None  # (python package, folder inside it)
    optional: bool = False
    studies: tuple[str, ...] = ()
    note: str = ""

    @property
    def file_names(self) -> tuple[str, ...]:
        return tuple(f.rsplit("/", 1)[-1] for f in self.files)


_TU_TABLE = "TU collection statistics (Morris et al. 2020; graphkerneldatasets table)"
_COUNTED = "counted from the canonical file (no published total)"


def _tu(
    name: str,
    stats: Stats,
    studies: tuple[str, ...],
    source: str = _TU_TABLE,
    folder: str = "tu",
    note: str = "",
    packaged: tuple[str, str] | None = None,
) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        format="tu",
        task="graph",
        files=(f"{folder}/{name}.zip",),
        urls=(TU_URL.format(name=name),),
        stats=stats,
        stats_source=source,
        studies=studies,
        note=note,
        packaged=packaged,
    )


def _hetero(
    name: str, file: str, stats: Stats, source: str, studies: tuple[str, ...], directed: bool = False
) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        format="heterophilous",
        task="node",
        files=(f"heterophilous/{file}.npz",),
        urls=(HETERO_URL.format(file=file),),
        stats=stats,
        stats_source=source,
        directed=directed,
        studies=studies,
    )


def _planetoid(name: str, stats: Stats, sha256: dict[str, str]) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        format="planetoid",
        task="node",
        files=tuple(f"planetoid/ind.{name}.{p}" for p in PLANETOID_PARTS),
        urls=tuple(PLANETOID_URL.format(name=name, part=p) for p in PLANETOID_PARTS),
        stats=stats,
        stats_source="PyG Planetoid statistics (Yang et al. 2016 public split)",
        sha256=sha256,
        studies=("nodeground",),
    )


def _shchur(name: str, file: str, stats: Stats) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        format="gnn_benchmark",
        task="node",
        files=(f"gnn-benchmark/{file}.npz",),
        urls=(SHCHUR_URL.format(file=file),),
        stats=stats,
        stats_source="PyG Amazon/Coauthor statistics (Shchur et al. 2018), edges halved",
        studies=("nodeground",),
    )


_GLAD = ("glad",)
_GLAD_LM = ("glad", "graphlm")
_PLATONOV = "Platonov et al. 2023, Table 1 (heterophilous-graphs)"

_ENTRIES: tuple[DatasetSpec, ...] = (
    # ---- TU graph classification sets ----
    _tu("AIDS", Stats(2000, 31385, 32390, 2, (400, 1600)), _GLAD),
    _tu("BZR", Stats(405, 14479, 15535, 2, (319, 86)), _GLAD),
    _tu("COX2", Stats(467, 19252, 20289, 2, (365, 102)), _GLAD),
    _tu("DHFR", Stats(756, 32075, 33676, 2, (295, 461)), _GLAD),
    _tu("ENZYMES", Stats(600, 19580, 37282, 6, (100,) * 6), ("glad", "graphlm", "llmpattern")),
    _tu("IMDB-BINARY", Stats(1000, 19773, 96531, 2, (500, 500)), ("glad", "llmpattern")),
    _tu("IMDB-MULTI", Stats(1500, 19502, 98903, 3, (500, 500, 500)), ("llmpattern",), source=_COUNTED),
    _tu(
        "Fingerprint",
        Stats(graphs=2800),
        ("llmpattern",),
        note="not mirrored; only the graph count of the TU table is checked (the paper's 2,149 counts another version)",
    ),
    _tu("REDDIT-BINARY", Stats(2000, 859254, 995508, 2, (1000, 1000)), _GLAD),
    _tu("NCI1", Stats(4110, 122747, 132753, 2, (2053, 2057)), _GLAD_LM),
    _tu("PROTEINS", Stats(1113, 43471, 81044, 2, (663, 450)), ("graphlm",)),
    _tu("PROTEINS_full", Stats(1113, 43471, 81044, 2, (663, 450)), _GLAD),
    _tu("DD", Stats(1178, 334925, 843046, 2, (691, 487)), _GLAD),
    _tu(
        "COLLAB",
        Stats(5000, 372474, None, 3, (2600, 775, 1625)),
        _GLAD,
        note="the TU table gives only the mean edge count (2457.78), so edges are not checked",
    ),
    _tu(
        "MUTAG",
        Stats(188, 3371, 3721, 2, (63, 125)),
        ("glad", "graphlm", "llmpattern"),
        packaged=("grakel", "tests/data/MUTAG"),
    ),
    _tu("PTC_MR", Stats(344, 4915, 5054, 2, (192, 152)), ("graphlm",)),
    # ---- UB-GOLD / GLocalKD Tox21 fixed splits (TU layout) ----
    *(
        _tu(
            f"Tox21_{task}_{part}",
            stats,
            _GLAD,
            folder="tox21",
            source="counted from the UB-GOLD/GLocalKD split files (no published table)",
        )
        for task, part, stats in (
            ("p53", "training", Stats(8634, 153570, 157029, 2, (8097, 537))),
            ("p53", "testing", Stats(269, 5956, 6199, 2, (241, 28))),
            ("MMP", "training", Stats(7320, 128005, 130487, 2, (6178, 1142))),
            ("MMP", "testing", Stats(238, 5161, 5367, 2, (200, 38))),
            ("HSE", "training", Stats(8150, 136240, 138841, 2, (7722, 428))),
            ("HSE", "testing", Stats(267, 5892, 6140, 2, (257, 10))),
            ("PPAR-gamma", "training", Stats(8184, 141006, 143628, 2, (7962, 222))),
            ("PPAR-gamma", "testing", Stats(267, 5885, 6123, 2, (252, 15))),
        )
    ),
    # ---- node classification: heterophilous-graphs ----
    _hetero(
        "minesweeper", "minesweeper", Stats(1, 10000, 39402, 2, (8000, 2000)), _PLATONOV, ("nodeground", "pattern")
    ),
    _hetero("tolokers", "tolokers", Stats(1, 11758, 519000, 2, (9192, 2566)), _PLATONOV, ("nodeground",)),
    _hetero("roman-empire", "roman_empire", Stats(1, 22662, 32927, 18), _PLATONOV, ("nodeground",)),
    _hetero("amazon-ratings", "amazon_ratings", Stats(1, 24492, 93050, 5), _PLATONOV, ("nodeground",)),
    _hetero("questions", "questions", Stats(1, 48921, 153540, 2), _PLATONOV, ("nodeground",)),
    _hetero("chameleon", "chameleon", Stats(1, 2277, 31371, 5, (456, 460, 453, 521, 387)), _COUNTED, ("nodeground",)),
    _hetero(
        "squirrel", "squirrel", Stats(1, 5201, 198353, 5, (1042, 1040, 1039, 1040, 1040)), _COUNTED, ("nodeground",)
    ),
    _hetero("chameleon-filtered", "chameleon_filtered", Stats(1, 890, 8854, 5), _PLATONOV, ("nodeground",)),
    _hetero("squirrel-filtered", "squirrel_filtered", Stats(1, 2223, 46998, 5), _PLATONOV, ("nodeground",)),
    _hetero("actor", "actor", Stats(1, 7600, 26659, 5, (853, 1337, 1630, 1815, 1965)), _COUNTED, ("nodeground",)),
    _hetero("texas", "texas", Stats(1, 183, 279, 5, (33, 1, 18, 101, 30)), _COUNTED, ("nodeground",)),
    _hetero("wisconsin", "wisconsin", Stats(1, 251, 450, 5, (10, 70, 118, 32, 21)), _COUNTED, ("nodeground",)),
    _hetero("cornell", "cornell", Stats(1, 183, 277, 5, (38, 16, 30, 82, 17)), _COUNTED, ("nodeground",)),
    # ---- node classification: Planetoid ----
    _planetoid(
        "cora",
        Stats(1, 2708, 5278, 7, (351, 217, 418, 818, 426, 298, 180)),
        {
            "ind.cora.x": "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
            "ind.cora.y": "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
            "ind.cora.tx": "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
            "ind.cora.ty": "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
            "ind.cora.allx": "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
            "ind.cora.ally": "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
            "ind.cora.graph": "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
            "ind.cora.test.index": "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
        },
    ),
    _planetoid(
        "citeseer",
        Stats(1, 3327, 4552, 6, (249, 590, 668, 701, 596, 508)),  # 15 isolated test ids carry no label
        {
            "ind.citeseer.x": "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6",
            "ind.citeseer.y": "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924",
            "ind.citeseer.tx": "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21",
            "ind.citeseer.ty": "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce",
            "ind.citeseer.allx": "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668",
            "ind.citeseer.ally": "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95",
            "ind.citeseer.graph": "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7",
            "ind.citeseer.test.index": "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4",
        },
    ),
    _planetoid("pubmed", Stats(1, 19717, 44324, 3), {}),
    # ---- node classification: Amazon / Coauthor (gnn-benchmark npz) ----
    _shchur("amazon-computers", "amazon_electronics_computers", Stats(1, 13752, 245861, 10)),
    _shchur("amazon-photo", "amazon_electronics_photo", Stats(1, 7650, 119081, 8)),
    _shchur("coauthor-cs", "ms_academic_cs", Stats(1, 18333, 81894, 15)),
    _shchur("coauthor-physics", "ms_academic_phy", Stats(1, 34493, 247962, 5)),
    # ---- node classification: Wiki-CS ----
    DatasetSpec(
        name="wiki-cs",
        format="wikics",
        task="node",
        files=("wiki-cs/data.json",),
        urls=(WIKICS_URL,),
        stats=Stats(1, 11701, None, 10),
        stats_source="Mernyei and Cangea 2020 (Wiki-CS): 11,701 nodes, 10 classes",
        studies=("nodeground",),
        note="the paper's 216,123 edges count the published links, PyG's 431,726 the directed entries after "
        "symmetrising; which pairs repeat or loop is not published, so edges are not checked",
    ),
    # ---- node classification: OGB ----
    DatasetSpec(
        name="ogbn-arxiv",
        format="ogb_nodeprop",
        task="node",
        files=("ogb/arxiv.zip",),
        urls=(OGB_URL.format(file="arxiv"),),
        stats=Stats(1, 169343, 1166243, 40),
        stats_source="OGB node property prediction table (Hu et al. 2020)",
        directed=True,
        studies=("nodeground",),
    ),
    # ---- optional: the official PATTERN / CLUSTER releases ----
    DatasetSpec(
        name="PATTERN",
        format="benchmarking_gnns",
        task="node",
        files=("benchmarking-gnns/PATTERN_v2.zip",),
        urls=(BENCHMARKING_GNNS_URL.format(file="PATTERN_v2"),),
        stats=Stats(graphs=14000, classes=2),
        stats_source="Dwivedi et al. 2023 (10,000 / 2,000 / 2,000 graphs)",
        optional=True,
        studies=("pattern",),
        note="about 2 GB as published; the pattern study regenerates it by default",
    ),
    DatasetSpec(
        name="CLUSTER",
        format="benchmarking_gnns",
        task="node",
        files=("benchmarking-gnns/CLUSTER_v2.zip",),
        urls=(BENCHMARKING_GNNS_URL.format(file="CLUSTER_v2"),),
        stats=Stats(graphs=12000, classes=6),
        stats_source="Dwivedi et al. 2023 (10,000 / 1,000 / 1,000 graphs)",
        optional=True,
        studies=("pattern",),
        note="the pattern study regenerates it by default",
    ),
)


def _download_only(name: str, fmt: str, file: str, url: str, stats: Stats, source: str, note: str) -> DatasetSpec:
    """A registry entry the project names (canonical source, published counts) but cannot read yet."""
    return DatasetSpec(
        name=name,
        format=fmt,
        task="graph",
        files=(file,),
        urls=(url,),
        stats=stats,
        stats_source=source,
        optional=True,
        studies=("llmpattern",),
        note=note,
    )


_OGB_GRAPH_TABLE = "OGB graph property prediction table (Hu et al. 2020)"
_SPLIT_NOTE = "the scaffold split is kept as graph_split; llmpattern's T11 samples from it as the authors' script does"
_ATTRIBUTION = "Sanchez-Lengeling et al. 2020 (graph-attribution benchmark), as quoted by the llmpattern paper"
_SMILES_NOTE = (
    "download-only: a CSV with columns smiles,label; llmpattern.molecules.files (or the mirror path) supplies it"
)


def _ogb_molecules(name: str, file: str, graphs: int) -> DatasetSpec:
    """An OGB graph-property molecule set (single task, binary label) read by ``read_ogb_graphprop``."""
    return DatasetSpec(
        name=name,
        format="ogb_graphprop",
        task="graph",
        files=(f"ogb/{file}.zip",),
        urls=(OGB_GRAPH_URL.format(file=file),),
        stats=Stats(graphs=graphs, classes=2),
        stats_source=_OGB_GRAPH_TABLE,
        optional=True,
        studies=("llmpattern",),
        note=_SPLIT_NOTE,
    )


_LLM_DATASETS: tuple[DatasetSpec, ...] = (
    _ogb_molecules("ogbg-molhiv", "hiv", 41127),
    _ogb_molecules("ogbg-molbbbp", "bbbp", 2039),
    *(
        _download_only(
            name,
            "smiles_csv",
            f"molecules/{file}_smiles.csv",
            ATTRIBUTION_URL.format(name=file),
            Stats(graphs=count, classes=2),
            _ATTRIBUTION,
            _SMILES_NOTE,
        )
        for name, file, count in (
            ("Benzene", "benzene", 12000),
            ("Alkane-Carbonyl", "alkane_carbonyl", 4326),
            ("Fluoride-Carbonyl", "fluoride_carbonyl", 8671),
        )
    ),
)

# ---- graphlm's scale corpus: OGB-LSC PCQM4Mv2 (download only: not in the mirror) ----
# 3,746,620 = the rows of raw/data.csv.gz = OGB's four split sizes summed, train 3,378,606 + valid 73,545 +
# test-dev 147,037 + test-challenge 147,432; the graphlm paper's Table 9 gives the same count and its 90 % split
# 3,371,958 = 0.9 x 3,746,620, so every row parsed there. OGB's docs page says 3,746,619 molecules, one fewer.
_PCQM4MV2_NOTE = (
    "download only (not mirrored; a 59 MB zip): its raw/data.csv.gz (columns idx,smiles,homolumogap) is converted "
    "with RDKit by graphaudit.data.readers_smiles (atom codes for GetSymbol, bond codes for GetBondType, hydrogens "
    "implicit, unparseable SMILES dropped and counted), about 10 minutes on one core; the parsed molecules must "
    "number all 3,746,620 rows, so a file or an RDKit build that loses one is refused; OGB's summary of 52,970,652 "
    "atoms and 54,546,813 bonds is not checked; the HOMO-LUMO gap and OGB's split_dict.pt are not read"
)

_GRAPHLM_DATASETS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        name="PCQM4Mv2",
        format="ogb_lsc_smiles",
        task="graph",
        files=("ogb/pcqm4m-v2.zip",),
        urls=(OGB_LSC_URL.format(file="pcqm4m-v2"),),
        stats=Stats(graphs=3746620),
        stats_source="OGB-LSC PCQM4Mv2 (Hu et al. 2021): molecules in the SMILES CSV (the four split sizes summed); "
        "the graphlm paper's Table 9",
        optional=True,
        studies=("graphlm",),
        note=_PCQM4MV2_NOTE,
    ),
)

REGISTRY: dict[str, DatasetSpec] = {spec.name: spec for spec in (*_ENTRIES, *_LLM_DATASETS, *_GRAPHLM_DATASETS)}


class UnknownDatasetError(KeyError):
    """A dataset name that the registry does not hold."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


def get_spec(name: str, key: str = "data.datasets") -> DatasetSpec:
    """The registry entry for ``name``; an unknown name lists the close and the known ones and names the
    config ``key`` that lists it."""
    if name in REGISTRY:
        return REGISTRY[name]
    import difflib

    close = difflib.get_close_matches(name, REGISTRY, n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UnknownDatasetError(
        f"{key}: unknown dataset {name!r}.{hint} Known datasets: {', '.join(sorted(REGISTRY))}. "
        f"Fix the name in the config's {key} list."
    )


def check_names(names: list[str], key: str = "data.datasets") -> list[str]:
    """Return ``names`` unchanged after checking that each is registered (so a typo fails before any job);
    ``key`` is the config list they come from, named by the error."""
    for name in names:
        get_spec(name, key)
    return list(names)
