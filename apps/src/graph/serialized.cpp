// weft's binary CSR files (.sg, .wsg; writer.hpp describes the layout) and
// text edge-list output.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/progress_meter.hpp"
#include "weft/apps/graph/reader.hpp"
#include "weft/apps/graph/writer.hpp"

namespace weft::graph {
namespace {

static_assert(std::endian::native == std::endian::little, "weft's binary graphs are little-endian");

constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'C', 'S', 'R', '1'};
constexpr std::uint32_t kDirected = 1, kWeighted = 2;
constexpr std::size_t kDigestBlock = 1u << 20;
constexpr std::uint64_t kFnvBasis = 0xcbf29ce484222325ull, kFnvPrime = 0x100000001b3ull;

struct Header {
  char magic[8];
  std::uint32_t flags;
  std::uint32_t id_bytes;
  std::int64_t num_nodes;
  std::int64_t out_entries;
  std::int64_t in_entries;
};
static_assert(sizeof(Header) == 40);

std::uint64_t fnv_words(const unsigned char* p, std::size_t bytes) {
  std::uint64_t h = kFnvBasis;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * kFnvPrime;
  }
  if (i < bytes) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + i, bytes - i);
    h = (h ^ w) * kFnvPrime;
  }
  return h;
}

// The digest of one section: FNV-1a over its 1 MiB blocks' word-wise FNV-1a
// (blocks hashed in parallel; the result does not depend on the workers).
std::uint64_t digest(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t blocks = (bytes + kDigestBlock - 1) / kDigestBlock;
  std::vector<std::uint64_t> block(blocks);
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    block[b] = fnv_words(p + b * kDigestBlock, std::min(kDigestBlock, bytes - b * kDigestBlock));
  });
  return fnv_words(reinterpret_cast<const unsigned char*>(block.data()), blocks * sizeof(std::uint64_t));
}

struct Section {
  const void* data;
  std::size_t bytes;
};

std::uint64_t checksum(const std::vector<Section>& sections) {
  std::vector<std::uint64_t> d;
  for (const Section& s : sections) d.push_back(digest(s.data, s.bytes));
  return fnv_words(reinterpret_cast<const unsigned char*>(d.data()), d.size() * sizeof(std::uint64_t));
}

std::string suffix_of(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  return dot == std::string::npos ? std::string() : path.substr(dot);
}

class File {
 public:
  File(const std::string& path, int flags) : path_(path), fd_(::open(path.c_str(), flags | O_CLOEXEC, 0644)) {}
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  int fd() const { return fd_; }
  bool ok() const { return fd_ >= 0; }

 private:
  std::string path_;
  int fd_;
};

template <class Graph>
void write_binary(const Graph& g, const std::string& path) {
  constexpr bool kW = Graph::kWeighted;
  const std::string want = kW ? ".wsg" : ".sg";
  if (suffix_of(path) != want)
    throw std::invalid_argument("write_serialized: " + path + ": a" + std::string(kW ? " weighted" : "n unweighted") +
                                " graph is written to a " + want + " file");
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.flags = (g.directed() ? kDirected : 0) | (kW ? kWeighted : 0);
  h.id_bytes = sizeof(NodeId);
  h.num_nodes = g.num_nodes();
  h.out_entries = g.num_edges_directed();
  h.in_entries = g.directed() ? g.num_edges_directed() : 0;
  using Dest = typename Graph::neighbor_type;
  std::vector<Section> sections{{&h, sizeof h},
                                {g.out_offsets().data(), g.out_offsets().size_bytes()},
                                {g.out_neighbors().data(), g.out_neighbors().size() * sizeof(Dest)}};
  if (g.directed()) {
    sections.push_back({g.in_offsets().data(), g.in_offsets().size_bytes()});
    sections.push_back({g.in_neighbors().data(), g.in_neighbors().size() * sizeof(Dest)});
  }
  const std::uint64_t sum = detail::on_runtime([&] { return checksum(sections); });
  sections.push_back({&sum, sizeof sum});
  File f(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (!f.ok()) throw std::runtime_error("write_serialized: cannot create " + path + ": " + std::strerror(errno));
  for (const Section& s : sections) {
    const auto* p = static_cast<const char*>(s.data);
    for (std::size_t done = 0; done < s.bytes;) {
      const ssize_t w = ::write(f.fd(), p + done, std::min<std::size_t>(s.bytes - done, 1u << 30));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw std::runtime_error("write_serialized: writing " + path + " failed: " + std::strerror(errno));
      done += static_cast<std::size_t>(w);
    }
  }
}

// Reads [offset, offset + bytes) of the file into `to`, in parallel blocks
// (each written first by the worker that reads it: first touch).
void read_at(int fd, const std::string& path, std::uint64_t offset, void* to, std::size_t bytes,
             detail::ProgressMeter& progress) {
  constexpr std::size_t kBlock = 8u << 20;
  const std::size_t blocks = (bytes + kBlock - 1) / kBlock;
  std::atomic<int> error{0};
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    char* p = static_cast<char*>(to) + b * kBlock;
    const std::size_t len = std::min(kBlock, bytes - b * kBlock);
    for (std::size_t done = 0; done < len;) {
      const ssize_t r = ::pread(fd, p + done, len - done, static_cast<off_t>(offset + b * kBlock + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        error.store(r == 0 ? -1 : errno);
        return;
      }
      done += static_cast<std::size_t>(r);
    }
    progress.advance();
  }, schedule_static());
  if (const int e = error.load())
    throw GraphFileError(path, 0, e < 0 ? "file ended early" : std::string("read failed: ") + std::strerror(e));
}

template <class Graph>
Graph read_binary(const std::string& path, const ProgressFn& progress_fn) {
  constexpr bool kW = Graph::kWeighted;
  using Dest = typename Graph::neighbor_type;
  const FileFormat format = file_format(path);
  if (format != FileFormat::serialized && format != FileFormat::weighted_serialized)
    throw GraphFileError(path, 0, "not a binary graph file (.sg or .wsg)");
  File f(path, O_RDONLY);
  if (!f.ok()) throw GraphFileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd(), &st) != 0 || S_ISDIR(st.st_mode)) throw GraphFileError(path, 0, "is not a readable file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) throw GraphFileError(path, 0, "empty file: no graph in it");
  Header h{};
  if (size < sizeof h || ::pread(f.fd(), &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h))
    throw GraphFileError(path, 0, "truncated: " + std::to_string(size) + " bytes, shorter than the 40-byte header");
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    throw GraphFileError(path, 0, "not a weft binary graph (the file does not start with 'WEFTCSR1'; GAPBS's own "
                                  ".sg files are a different format: convert from an edge list)");
  if ((h.flags & ~(kDirected | kWeighted)) != 0 || h.id_bytes != sizeof(NodeId))
    throw GraphFileError(path, 0, "unsupported header (flags " + std::to_string(h.flags) + ", " +
                                      std::to_string(h.id_bytes) + "-byte ids)");
  const bool weighted = (h.flags & kWeighted) != 0, directed = (h.flags & kDirected) != 0;
  if (weighted != kW)
    throw GraphFileError(path, 0, std::string("holds a") + (weighted ? " weighted" : "n unweighted") +
                                      " graph; this needs a" + (kW ? " weighted (.wsg)" : "n unweighted (.sg)") + " one");
  if ((format == FileFormat::weighted_serialized) != weighted)
    throw GraphFileError(path, 0, std::string("the suffix says ") + (weighted ? ".sg" : ".wsg") + " but the file holds a" +
                                      (weighted ? " weighted" : "n unweighted") + " graph");
  if (h.num_nodes < 0 || h.num_nodes > kMaxNodes || h.out_entries < 0 || h.in_entries != (directed ? h.out_entries : 0))
    throw GraphFileError(path, 0, "inconsistent header (" + std::to_string(h.num_nodes) + " vertices, " +
                                      std::to_string(h.out_entries) + " out- and " + std::to_string(h.in_entries) +
                                      " in-entries)");
  const std::uint64_t n1 = static_cast<std::uint64_t>(h.num_nodes) + 1;
  const std::uint64_t sides = directed ? 2 : 1;
  const std::uint64_t m = static_cast<std::uint64_t>(h.out_entries);
  if (m > (std::uint64_t{1} << 40))
    throw GraphFileError(path, 0, "declares " + std::to_string(m) + " edges, more than this reader accepts (2^40)");
  const std::uint64_t expected = sizeof h + sides * (n1 * sizeof(EdgeOffset) + m * sizeof(Dest)) + sizeof(std::uint64_t);
  if (size != expected)
    throw GraphFileError(path, 0, (size < expected ? "truncated: " : "too long: ") + std::to_string(size) +
                                      " bytes, the header implies " + std::to_string(expected));
  return detail::on_runtime([&] {
    const std::uint64_t units = sides * ((n1 * sizeof(EdgeOffset) + m * sizeof(Dest)) / (8u << 20) + 2);
    detail::ProgressMeter progress(progress_fn, "read", units);
    std::uint64_t at = sizeof h;
    auto next = [&](void* to, std::size_t bytes) {
      read_at(f.fd(), path, at, to, bytes, progress);
      at += bytes;
    };
    Array<EdgeOffset> off(n1), in_off;
    Array<Dest> nb(m), in_nb;
    next(off.data(), off.memory_bytes());
    next(nb.data(), nb.memory_bytes());
    std::vector<Section> sections{{&h, sizeof h}, {off.data(), off.memory_bytes()}, {nb.data(), nb.memory_bytes()}};
    if (directed) {
      in_off = Array<EdgeOffset>(n1);
      in_nb = Array<Dest>(m);
      next(in_off.data(), in_off.memory_bytes());
      next(in_nb.data(), in_nb.memory_bytes());
      sections.push_back({in_off.data(), in_off.memory_bytes()});
      sections.push_back({in_nb.data(), in_nb.memory_bytes()});
    }
    std::uint64_t stored = 0;
    if (::pread(f.fd(), &stored, sizeof stored, static_cast<off_t>(at)) != static_cast<ssize_t>(sizeof stored))
      throw GraphFileError(path, 0, "truncated: the checksum is missing");
    if (checksum(sections) != stored) throw GraphFileError(path, 0, "checksum mismatch: the file is corrupt");
    progress.finish();
    try {
      const auto n = static_cast<NodeId>(h.num_nodes);
      Graph g = directed ? Graph(n, std::move(off), std::move(nb), std::move(in_off), std::move(in_nb))
                         : Graph(n, std::move(off), std::move(nb));
      g.validate("graph");
      return g;
    } catch (const std::invalid_argument& e) {
      throw GraphFileError(path, 0, e.what());
    }
  });
}

template <class Graph>
void write_text(const Graph& g, const std::string& path) {
  constexpr bool kW = Graph::kWeighted;
  const std::string want = kW ? ".wel" : ".el";
  if (suffix_of(path) != want)
    throw std::invalid_argument("write_edge_list: " + path + ": a" + std::string(kW ? " weighted" : "n unweighted") +
                                " graph is written to a " + want + " file");
  File f(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (!f.ok()) throw std::runtime_error("write_edge_list: cannot create " + path + ": " + std::strerror(errno));
  std::string buf;
  auto flush = [&] {
    for (std::size_t done = 0; done < buf.size();) {
      const ssize_t w = ::write(f.fd(), buf.data() + done, buf.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw std::runtime_error("write_edge_list: writing " + path + " failed: " + std::strerror(errno));
      done += static_cast<std::size_t>(w);
    }
    buf.clear();
  };
  auto put = [&](std::int64_t x, char after) {
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, x);
    buf.append(tmp, r.ptr);
    buf.push_back(after);
  };
  for (NodeId u = 0; u < g.num_nodes(); ++u) {
    for (const auto& d : g.out_neigh(u)) {
      if (!g.directed() && target(d) < u) continue;
      put(u, ' ');
      if constexpr (kW) {
        put(d.v, ' ');
        put(d.w, '\n');
      } else {
        put(d, '\n');
      }
    }
    if (buf.size() > (1u << 20)) flush();
  }
  flush();
}

}  // namespace

void write_serialized(const CSRGraph& g, const std::string& path) { write_binary(g, path); }
void write_serialized(const WeightedCSRGraph& g, const std::string& path) { write_binary(g, path); }
void write_edge_list(const CSRGraph& g, const std::string& path) { write_text(g, path); }
void write_edge_list(const WeightedCSRGraph& g, const std::string& path) { write_text(g, path); }

CSRGraph read_serialized(const std::string& path, const ProgressFn& progress) {
  return read_binary<CSRGraph>(path, progress);
}
WeightedCSRGraph read_weighted_serialized(const std::string& path, const ProgressFn& progress) {
  return read_binary<WeightedCSRGraph>(path, progress);
}

}  // namespace weft::graph
