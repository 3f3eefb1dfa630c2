// Unit tests of the configuration tree: locations and paths, includes, overrides, strict readers
// and their messages, YAML emission.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "contactlab/core/config.hpp"
#include "contactlab/errors.hpp"

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;
using contactlab::InputError;
using contactlab::core::ConfigNode;
using contactlab::core::MapReader;

/// A fresh directory under the system temporary directory, removed with its contents at the end.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = fs::temp_directory_path() /
            ("contactlab_test_config_" + std::to_string(stamp) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  /// Writes `text` to `name` (relative to the directory, subdirectories created) and returns it.
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << text;
    return file;
  }

 private:
  fs::path path_;
};

/// The message of the InputError thrown by `action` (the test fails if none is thrown).
std::string input_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  FAIL("expected an InputError");
  return {};
}

ConfigNode parse(const std::string& text) {
  return contactlab::core::parse_yaml(text, "t.yaml");
}

/// Same kinds, scalars, keys (in order) and paths; locations are not compared.
bool same_tree(const ConfigNode& a, const ConfigNode& b) {
  if (a.kind() != b.kind() || a.path() != b.path()) return false;
  switch (a.kind()) {
    case ConfigNode::Kind::null:
      return true;
    case ConfigNode::Kind::scalar:
      return a.scalar() == b.scalar();
    case ConfigNode::Kind::sequence:
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same_tree(a.at(i), b.at(i))) return false;
      }
      return true;
    case ConfigNode::Kind::map:
      if (a.entries().size() != b.entries().size()) return false;
      for (std::size_t i = 0; i < a.entries().size(); ++i) {
        if (a.entries()[i].first != b.entries()[i].first) return false;
        if (!same_tree(a.entries()[i].second, b.entries()[i].second)) return false;
      }
      return true;
  }
  return false;
}

const char* const kScene = R"(# a scene
bodies:
  - name: floor
    fixed: true
  - name: ball
    geometry:
      - shape:
          type: sphere
          radius_m: 0.1
integrator:
  type: rk4
  dt: 1e-3
)";

}  // namespace

// -------------------------------------------------------------------------------------------------
// Tree, locations, paths

TEST_CASE("config: every node knows its file:line:col and its dotted path") {
  const ConfigNode root = parse(kScene);
  REQUIRE(root.is_map());
  CHECK(root.path().empty());
  CHECK(root.display_path() == "(top level)");

  const ConfigNode& radius =
      *root.find("bodies")->at(1).find("geometry")->at(0).find("shape")->find("radius_m");
  CHECK(radius.is_scalar());
  CHECK(radius.scalar() == "0.1");
  CHECK(radius.path() == "bodies[1].geometry[0].shape.radius_m");
  CHECK(radius.location().file == "t.yaml");
  CHECK(radius.location().line == 9);
  CHECK(radius.location().column == 21);
  CHECK(radius.location().str() == "t.yaml:9:21");

  // An element of a list is located at its first key, after the dash.
  const ConfigNode& ball = root.find("bodies")->at(1);
  CHECK(ball.path() == "bodies[1]");
  CHECK(ball.location().str() == "t.yaml:5:5");

  // A block map or list value is located at its key (the line that names it).
  CHECK(root.find("integrator")->location().str() == "t.yaml:10:1");
  CHECK(root.find("integrator")->find("dt")->path() == "integrator.dt");
}

TEST_CASE(
    "config: SourceLocation prints file:line:col, or the file alone when the line is unknown") {
  CHECK(contactlab::core::SourceLocation{"a.yaml", 3, 7}.str() == "a.yaml:3:7");
  CHECK(contactlab::core::SourceLocation{"<default>", 0, 0}.str() == "<default>");
}

TEST_CASE("config: null, quoted and empty scalars are told apart") {
  const ConfigNode root = parse("a:\nb: ~\nc: null\nd: '~'\ne: \"\"\nf: 'true'\n");
  CHECK(root.find("a")->is_null());
  CHECK(root.find("b")->is_null());
  CHECK(root.find("c")->is_null());
  CHECK(root.find("d")->is_scalar());
  CHECK(root.find("d")->scalar() == "~");
  CHECK(root.find("e")->is_scalar());
  CHECK(root.find("e")->scalar().empty());
  CHECK(root.find("f")->scalar() == "true");
  // An empty value sits on its key's line.
  CHECK(root.find("a")->location().str() == "t.yaml:1:1");
  CHECK(parse("").is_null());
  CHECK(parse("# only a comment\n").is_null());
}

TEST_CASE("config: fail_at writes location, message and dotted path") {
  const ConfigNode root = parse(kScene);
  const ConfigNode& dt = *root.find("integrator")->find("dt");
  CHECK_THAT(input_error([&] { contactlab::core::fail_at(dt, "too big"); }),
             Equals("t.yaml:12:7: too big (at integrator.dt)"));
  CHECK_THAT(input_error([&] { contactlab::core::fail_at(root, "oops"); }),
             Equals("t.yaml:2:1: oops (at (top level))"));
}

TEST_CASE("config: set, erase and push_back derive the paths of the children") {
  ConfigNode root(ConfigNode::Kind::map, {"x.yaml", 1, 1}, "");
  ConfigNode& sim = root.set("sim", ConfigNode(ConfigNode::Kind::map, {}, "wrong"));
  sim.set("dt", ConfigNode::make_scalar("0.01", {}, "wrong"));
  CHECK(root.find("sim")->find("dt")->path() == "sim.dt");

  ConfigNode& list = root.set("items", ConfigNode(ConfigNode::Kind::sequence, {}, ""));
  list.push_back(ConfigNode::make_scalar("a", {}, ""));
  ConfigNode& second = list.push_back(ConfigNode(ConfigNode::Kind::map, {}, ""));
  second.set("k", ConfigNode::make_scalar("v", {}, ""));
  CHECK(root.find("items")->at(1).find("k")->path() == "items[1].k");

  // Replacing keeps the position of the key.
  root.set("sim", ConfigNode::make_scalar("none", {}, ""));
  CHECK(root.entries().front().first == "sim");
  CHECK(root.find("sim")->scalar() == "none");

  CHECK(root.erase("sim"));
  CHECK_FALSE(root.erase("sim"));
  CHECK(root.find("sim") == nullptr);

  root.find("items")->rebase_path("moved");
  CHECK(root.find("items")->at(1).find("k")->path() == "moved[1].k");
}

TEST_CASE("config: copies of a node are deep") {
  ConfigNode original = parse("a:\n  b: 1\n");
  ConfigNode copy = original;
  copy.find("a")->find("b")->set_scalar("2");
  CHECK(original.find("a")->find("b")->scalar() == "1");
  ConfigNode assigned;
  assigned = original;
  original.find("a")->erase("b");
  CHECK(assigned.find("a")->find("b")->scalar() == "1");
}

// -------------------------------------------------------------------------------------------------
// Files, syntax errors, includes

TEST_CASE("config: a missing file is reported by name") {
  const TempDir dir;
  const fs::path missing = dir.path() / "nope.yaml";
  CHECK_THAT(input_error([&] { contactlab::core::load_config_file(missing); }),
             Equals("cannot open configuration file '" + missing.string() +
                    "': No such file or directory"));
}

TEST_CASE("config: a YAML syntax error is reported as file:line:col") {
  CHECK_THAT(input_error([] { parse("a: 1\nb: [1, 2\nc: 3\n"); }),
             StartsWith("t.yaml:3:2: YAML syntax error: "));
  CHECK_THAT(input_error([] { parse("a: 1\n\tb: 2\n"); }),
             Equals("t.yaml:2:1: YAML syntax error: illegal tab when looking for indentation"));

  const TempDir dir;
  const fs::path file = dir.write("bad.yaml", "sim:\n  dt: 1\n   x: 2\n");
  CHECK_THAT(input_error([&] { contactlab::core::load_config_file(file); }),
             StartsWith(file.string() + ":3:"));
  CHECK_THAT(input_error([&] { contactlab::core::load_config_file(file); }),
             Contains("YAML syntax error: "));
}

TEST_CASE("config: a duplicate key is an error naming both places") {
  CHECK_THAT(input_error([] { parse("sim:\n  dt: 1\n  dt: 2\n"); }),
             Equals("t.yaml:3:3: duplicate key 'dt' (first given at t.yaml:2:7) (at sim.dt)"));
}

TEST_CASE("config: a file holds a single YAML document") {
  CHECK_THAT(input_error([] { parse("a: 1\n---\nb: 2\n"); }), Contains("one YAML document"));
}

TEST_CASE("config: includes merge in order, relative to the including file, and it wins") {
  const TempDir dir;
  dir.write("common/base.yaml",
            "include: physics.yaml\n"  // relative to common/
            "sim:\n  dt: 0.01\n  steps: 10\n  solver: {type: euler, tol: 1e-6}\n"
            "tags: [a, b]\n"
            "from_base: 1\n");
  dir.write("common/physics.yaml", "gravity: [0, 0, -9.81]\nsim:\n  dt: 0.5\n  substeps: 2\n");
  dir.write("common/later.yaml", "sim:\n  steps: 20\nfrom_later: 2\ntags: [c]\n");
  const fs::path main = dir.write("scene.yaml",
                                  "include:\n  - common/base.yaml\n  - common/later.yaml\n"
                                  "sim:\n  solver:\n    tol: 1e-9\n"
                                  "own: 3\n");
  const ConfigNode root = contactlab::core::load_config_file(main);

  CHECK(root.find("include") == nullptr);
  const ConfigNode& sim = *root.find("sim");
  CHECK(sim.find("dt")->scalar() == "0.01");     // base overrides physics (its include)
  CHECK(sim.find("substeps")->scalar() == "2");  // ... but keeps physics' other keys
  CHECK(sim.find("steps")->scalar() == "20");    // the later include overrides the earlier
  CHECK(sim.find("solver")->find("type")->scalar() == "euler");  // maps merge recursively
  CHECK(sim.find("solver")->find("tol")->scalar() == "1e-9");    // the including file wins
  REQUIRE(root.find("tags")->size() == 1);                       // lists are replaced
  CHECK(root.find("tags")->at(0).scalar() == "c");
  CHECK(root.find("gravity")->size() == 3);

  // Keys keep the order in which they first appeared.
  std::vector<std::string> keys;
  for (const auto& entry : root.entries()) keys.push_back(entry.first);
  CHECK(keys ==
        std::vector<std::string>{"gravity", "sim", "tags", "from_base", "from_later", "own"});

  // Nodes keep the location of their own file; paths are those of the merged tree.
  const std::string common = (dir.path() / "common").string();
  CHECK(sim.find("substeps")->location().str() == common + "/physics.yaml:4:13");
  CHECK(sim.find("dt")->location().str() == common + "/base.yaml:3:7");
  CHECK(sim.find("solver")->find("tol")->location().str() == main.string() + ":6:10");
  CHECK(sim.find("solver")->find("type")->path() == "sim.solver.type");
  CHECK(root.find("gravity")->at(2).path() == "gravity[2]");
}

TEST_CASE("config: an include cycle is an error naming the cycle") {
  const TempDir dir;
  const fs::path a = dir.write("a.yaml", "include: [b.yaml]\nx: 1\n");
  dir.write("b.yaml", "include: sub/../a.yaml\ny: 2\n");
  const std::string message = input_error([&] { contactlab::core::load_config_file(a); });
  const std::string d = dir.path().string();
  CHECK_THAT(message, Equals(d + "/b.yaml:1:10: include cycle: " + d + "/a.yaml -> " + d +
                             "/b.yaml -> " + d + "/a.yaml (at include)"));

  const fs::path self = dir.write("self.yaml", "include: self.yaml\n");
  CHECK_THAT(input_error([&] { contactlab::core::load_config_file(self); }),
             Contains("include cycle: " + self.string() + " -> " + self.string()));
}

TEST_CASE("config: a file included twice (not a cycle) is fine") {
  const TempDir dir;
  dir.write("shared.yaml", "s: 1\n");
  dir.write("left.yaml", "include: shared.yaml\nl: 1\n");
  dir.write("right.yaml", "include: shared.yaml\nr: 1\n");
  const fs::path main = dir.write("main.yaml", "include: [left.yaml, right.yaml]\n");
  const ConfigNode root = contactlab::core::load_config_file(main);
  CHECK(root.find("s") != nullptr);
  CHECK(root.find("l") != nullptr);
  CHECK(root.find("r") != nullptr);
}

TEST_CASE("config: a missing or malformed include is located at the include entry") {
  const TempDir dir;
  const fs::path main = dir.write("main.yaml", "include:\n  - there.yaml\n  - gone.yaml\n");
  dir.write("there.yaml", "a: 1\n");
  const std::string d = dir.path().string();
  CHECK_THAT(input_error([&] { contactlab::core::load_config_file(main); }),
             Equals(main.string() + ":3:5: cannot open configuration file '" + d +
                    "/gone.yaml': No such file or directory (at include[1])"));

  const fs::path list = dir.write("list.yaml", "- 1\n- 2\n");
  const fs::path includes_list = dir.write("includes_list.yaml", "include: list.yaml\n");
  CHECK_THAT(input_error([&] { contactlab::core::load_config_file(includes_list); }),
             Equals(list.string() +
                    ":1:1: an included file must contain a map (key: value pairs), got a list "
                    "of 2 (at (top level))"));

  const fs::path nested = dir.write("nested.yaml", "include:\n  - [a.yaml]\n");
  CHECK_THAT(input_error([&] { contactlab::core::load_config_file(nested); }),
             Contains("include entries must be file names, got a list of 1 (at include[0])"));
}

// -------------------------------------------------------------------------------------------------
// Strict readers

TEST_CASE("config: unknown key names file:line:col and suggests the close key") {
  ConfigNode root = parse("shape:\n  type: sphere\n  raduis_m: 0.1\n");
  MapReader shape(*root.find("shape"));
  CHECK(shape.string("type") == "sphere");
  CHECK(shape.real_or("radius_m", 0.5) == 0.5);
  CHECK_THAT(input_error([&] { shape.finish(); }),
             Equals("t.yaml:3:13: unknown key 'raduis_m' (did you mean 'radius_m'?) (at "
                    "shape.raduis_m)"));
}

TEST_CASE("config: unknown key with nothing close lists the allowed keys") {
  ConfigNode root = parse("dt: 0.1\ncolour: red\n");
  MapReader reader(root);
  reader.real("dt");
  reader.has("steps");
  CHECK_THAT(input_error([&] { reader.finish(); }),
             Equals("t.yaml:2:9: unknown key 'colour' (allowed keys: dt, steps) (at colour)"));

  ConfigNode empty = parse("{extra: 1}");
  MapReader none(empty);
  CHECK_THAT(input_error([&] { none.finish(); }),
             Contains("unknown key 'extra' (no keys are allowed here)"));
}

TEST_CASE("config: keys only asked about with has() or optional() are known") {
  ConfigNode root = parse("a: 1\nb: 2\n");
  MapReader reader(root);
  CHECK(reader.has("a"));
  CHECK(reader.optional("b") != nullptr);
  CHECK_FALSE(reader.has("c"));
  CHECK(reader.optional("d") == nullptr);
  CHECK_NOTHROW(reader.finish());
}

TEST_CASE("config: a missing required key with a near miss present is reported at the near miss") {
  ConfigNode root = parse("body:\n  mass_kgg: 1\n");
  MapReader body(*root.find("body"));
  CHECK_THAT(input_error([&] { body.real("mass_kg"); }),
             Equals("t.yaml:2:13: unknown key 'mass_kgg' (did you mean 'mass_kg'?); 'mass_kg' is "
                    "required (at body.mass_kgg)"));
  CHECK_THAT(input_error([&] { body.required("inertia"); }),
             Equals("t.yaml:1:1: missing required key 'inertia' (at body)"));
}

TEST_CASE("config: values of the wrong type are refused with what was found") {
  ConfigNode root = parse(
      "word: abc\ninf: .inf\nnan: .nan\nplain_nan: nan\nhalf: 1.5\nyes: yes\n"
      "map: {a: 1}\nlist: [1, 2]\nempty:\nbad_item: [1, x, 3]\nhuge: 1e999\n");
  auto at = [&](const std::string& key) -> const ConfigNode& { return *root.find(key); };
  using namespace contactlab::core;
  CHECK_THAT(input_error([&] { as_real(at("word")); }),
             Equals("t.yaml:1:7: must be a finite number, got 'abc' (at word)"));
  CHECK_THAT(input_error([&] { as_real(at("inf")); }),
             Contains("must be a finite number, got '.inf'"));
  CHECK_THAT(input_error([&] { as_real(at("nan")); }),
             Contains("must be a finite number, got '.nan'"));
  CHECK_THAT(input_error([&] { as_real(at("plain_nan")); }), Contains("got 'nan'"));
  CHECK_THAT(input_error([&] { as_real(at("huge")); }), Contains("got '1e999'"));
  CHECK_THAT(input_error([&] { as_real(at("map")); }),
             Contains("must be a finite number, got a map"));
  CHECK_THAT(input_error([&] { as_real(at("empty")); }),
             Contains("must be a finite number, got an empty value (at empty)"));
  CHECK_THAT(input_error([&] { as_integer(at("half")); }),
             Equals("t.yaml:5:7: must be an integer, got '1.5' (at half)"));
  CHECK_THAT(input_error([&] { as_boolean(at("yes")); }),
             Contains("must be true or false, got 'yes'"));
  CHECK_THAT(input_error([&] { as_string(at("list")); }), Contains("got a list of 2 (at list)"));
  CHECK_THAT(
      input_error([&] { as_vec3(at("list")); }),
      Equals("t.yaml:8:7: must be a list of 3 numbers [x, y, z], got a list of 2 (at list)"));
  CHECK_THAT(input_error([&] { as_vec3(at("bad_item")); }),
             Equals("t.yaml:10:15: must be a finite number, got 'x' (at bad_item[1])"));
  CHECK_THAT(input_error([&] { MapReader reader(*root.find("list")); }),
             Equals("t.yaml:8:7: must be a map (key: value pairs), got a list of 2 (at list)"));
  CHECK_THAT(input_error([&] { MapReader reader(*root.find("word")); }),
             Contains("must be a map (key: value pairs), got 'abc'"));
}

TEST_CASE("config: numbers, integers and booleans accept their YAML spellings") {
  ConfigNode root = parse(
      "a: 1.0e-3\nb: 1e6\nc: -2\nd: +3\ne: .5\nf: 1e-400\n"
      "i: 42\nj: -7\nk: +5\nt: true\nT: True\nU: TRUE\nF: false\nG: False\nH: FALSE\n"
      "s: \"quoted: text\"\nv: [0, 0.5, -9.81]\n");
  auto at = [&](const std::string& key) -> const ConfigNode& { return *root.find(key); };
  using namespace contactlab::core;
  CHECK(as_real(at("a")) == 1e-3);
  CHECK(as_real(at("b")) == 1e6);
  CHECK(as_real(at("c")) == -2.0);
  CHECK(as_real(at("d")) == 3.0);
  CHECK(as_real(at("e")) == 0.5);
  CHECK(as_real(at("f")) == 0.0);
  CHECK(as_integer(at("i")) == 42);
  CHECK(as_integer(at("j")) == -7);
  CHECK(as_integer(at("k")) == 5);
  for (const char* key : {"t", "T", "U"}) CHECK(as_boolean(at(key)));
  for (const char* key : {"F", "G", "H"}) CHECK_FALSE(as_boolean(at(key)));
  CHECK(as_string(at("s")) == "quoted: text");
  CHECK(as_vec3(at("v")) == contactlab::Vec3(0.0, 0.5, -9.81));
}

TEST_CASE("config: out-of-range values show the interval with its brackets and unit") {
  ConfigNode root = parse("radius_m: 0\nfriction: 1.5\ndt: -1e-3\n");
  using contactlab::core::check_range;
  constexpr double inf = std::numeric_limits<double>::infinity();
  const ConfigNode& radius = *root.find("radius_m");
  CHECK_THAT(input_error([&] { check_range(radius, 0.0, 0.0, inf, true, false, "m"); }),
             Equals("t.yaml:1:11: value 0 out of range (0, inf] m (at radius_m)"));
  CHECK_NOTHROW(check_range(radius, 0.0, 0.0, inf, false, false));
  CHECK_THAT(input_error([&] { check_range(radius, 2.5, -inf, 1, false, true); }),
             Contains("value 2.5 out of range [-inf, 1) (at radius_m)"));
  CHECK_THAT(input_error([&] { check_range(radius, std::nan(""), -inf, inf, false, false); }),
             Contains("value nan out of range [-inf, inf]"));

  MapReader reader(root);
  CHECK_THAT(input_error([&] { reader.real_in("friction", 0.0, 1.0); }),
             Equals("t.yaml:2:11: value 1.5 out of range [0, 1] (at friction)"));
  CHECK_THAT(input_error([&] { reader.real_in_or("dt", 1e-3, 0.0, inf, true); }),
             Equals("t.yaml:3:5: value -0.001 out of range (0, inf] (at dt)"));
  CHECK(reader.real_in("radius_m", 0.0, 1.0) == 0.0);
  CHECK(reader.real_in_or("absent", 0.25, 0.0, 1.0) == 0.25);
}

TEST_CASE("config: defaults are inserted into the tree by finish() and emitted by to_yaml") {
  ConfigNode root = parse("sim:\n  dt: 0.01\nbodies: [{name: a}]\n");
  MapReader top(root);
  ConfigNode& sim_node = top.required("sim");
  ConfigNode& bodies = top.required("bodies");
  MapReader sim(sim_node);
  CHECK(sim.real("dt") == 0.01);
  CHECK(sim.real_or("t_end", 0.1) == 0.1);
  CHECK(sim.integer_or("substeps", 4) == 4);
  CHECK(sim.boolean_or("record", true));
  CHECK(sim.string_or("label", "run 1") == "run 1");
  CHECK(sim.string_or("mode", "true") == "true");
  CHECK(sim.choice_or("integrator", "rk4", {"euler", "rk4"}) == "rk4");
  CHECK(sim.vec3_or("gravity", contactlab::Vec3(0, 0, -9.81)) == contactlab::Vec3(0, 0, -9.81));
  CHECK(sim.has("t_end"));  // a default counts as present from now on
  sim.finish();
  // Many defaults at the top level must not invalidate references handed out before.
  for (int i = 0; i < 100; ++i) top.real_or("extra_" + std::to_string(i), i / 3.0);
  CHECK(bodies.at(0).find("name")->scalar() == "a");
  CHECK(sim_node.find("dt")->scalar() == "0.01");
  top.finish();

  const ConfigNode& t_end = *root.find("sim")->find("t_end");
  CHECK(t_end.location().str() == "<default>");
  CHECK(t_end.path() == "sim.t_end");
  CHECK(root.find("sim")->find("gravity")->at(2).path() == "sim.gravity[2]");
  CHECK(root.find("extra_1")->scalar() == "0.3333333333333333");  // round-trip precision
  CHECK(contactlab::core::as_real(*root.find("extra_1")) == 1 / 3.0);

  const std::string yaml = contactlab::core::to_yaml(root);
  CHECK_THAT(yaml, StartsWith("sim:\n"
                              "  dt: 0.01\n"
                              "  t_end: 0.1\n"
                              "  substeps: 4\n"
                              "  record: true\n"
                              "  label: run 1\n"
                              "  mode: true\n"
                              "  integrator: rk4\n"
                              "  gravity:\n"
                              "    - 0\n"
                              "    - 0\n"
                              "    - -9.81\n"
                              "bodies:\n"
                              "  - name: a\n"
                              "extra_0: 0\n"));
  // The defaults read back as what they were.
  ConfigNode again = contactlab::core::parse_yaml(yaml, "resolved.yaml");
  MapReader sim_again(*again.find("sim"));
  CHECK(sim_again.real("t_end") == 0.1);
  CHECK(contactlab::core::as_vec3(*again.find("sim")->find("gravity")) ==
        contactlab::Vec3(0, 0, -9.81));
}

TEST_CASE("config: a value given in the file is not replaced by the default") {
  ConfigNode root = parse("dt: 0.5\n");
  MapReader reader(root);
  CHECK(reader.real_or("dt", 0.1) == 0.5);
  reader.finish();
  CHECK(root.find("dt")->scalar() == "0.5");
  CHECK(root.find("dt")->location().str() == "t.yaml:1:5");
}

TEST_CASE("config: a null node is read as an empty map") {
  ConfigNode root = parse("params:\n");
  MapReader params(*root.find("params"));
  CHECK(params.real_or("k", 2.0) == 2.0);
  params.finish();
  CHECK(root.find("params")->is_map());
  CHECK(root.find("params")->find("k")->path() == "params.k");
}

TEST_CASE("config: choice_or refuses other values and suggests the close one") {
  ConfigNode root = parse("integrator: rk5\nmode: something\n");
  MapReader reader(root);
  CHECK_THAT(input_error([&] {
               reader.choice_or("integrator", "rk4", {"euler", "rk4", "rk45"});
             }),
             Equals("t.yaml:1:13: must be one of euler, rk4, rk45, got 'rk5' (did you mean 'rk4'?) "
                    "(at integrator)"));
  CHECK_THAT(input_error([&] {
               reader.choice_or("mode", "a", {"fast", "exact"});
             }),
             Equals("t.yaml:2:7: must be one of fast, exact, got 'something' (at mode)"));
}

TEST_CASE("config: did_you_mean uses a case-insensitive edit distance with transpositions") {
  using contactlab::core::did_you_mean;
  const std::vector<std::string> keys{"radius_m", "height_m", "mass_kg", "type"};
  CHECK(did_you_mean("raduis_m", keys) == "radius_m");  // one transposition
  CHECK(did_you_mean("Radius_M", keys) == "radius_m");  // case is ignored
  CHECK(did_you_mean("mass", keys).empty());            // 3 edits: too far for a short word
  CHECK(did_you_mean("typo", keys) == "type");
  CHECK(did_you_mean("colour", keys).empty());
  CHECK(did_you_mean("x", {"y"}).empty());  // replacing everything is no suggestion
  CHECK(did_you_mean("", keys).empty());
  CHECK(did_you_mean("ab", {"ax", "ay"}) == "ax");  // ties go to the first candidate
  CHECK(did_you_mean("anything", {}).empty());
  // The allowed distance grows with the word: max(2, length/3).
  CHECK(did_you_mean("restitution_coefficient", {"restitution_coeficeint"}) ==
        "restitution_coeficeint");
  CHECK(did_you_mean("abcdef", {"abcxyz"}).empty());
}

// -------------------------------------------------------------------------------------------------
// Command-line overrides

TEST_CASE("config: --set replaces a map key and records where the value came from") {
  ConfigNode root = parse(kScene);
  contactlab::core::apply_override(root, "integrator.dt=1e-4");
  const ConfigNode& dt = *root.find("integrator")->find("dt");
  CHECK(dt.scalar() == "1e-4");
  CHECK(dt.path() == "integrator.dt");
  CHECK(dt.location().file == "--set integrator.dt=1e-4");
  CHECK(dt.location().line == 0);
  CHECK(root.find("integrator")->entries()[1].first == "dt");  // stays in place
  CHECK_THAT(input_error([&] { contactlab::core::fail_at(dt, "bad"); }),
             Equals("--set integrator.dt=1e-4: bad (at integrator.dt)"));
}

TEST_CASE("config: --set addresses list elements by index or by their name") {
  ConfigNode root = parse(kScene);
  contactlab::core::apply_override(root, "bodies.1.geometry.0.shape.radius_m=0.25");
  const ConfigNode& ball = root.find("bodies")->at(1);
  CHECK(ball.find("geometry")->at(0).find("shape")->find("radius_m")->scalar() == "0.25");

  contactlab::core::apply_override(root, "bodies.floor.fixed=false");
  CHECK(root.find("bodies")->at(0).find("fixed")->scalar() == "false");

  // The path syntax of the messages is accepted too.
  contactlab::core::apply_override(root, "bodies[1].geometry[0].shape.type=box");
  CHECK(ball.find("geometry")->at(0).find("shape")->find("type")->scalar() == "box");

  // A whole element can be replaced; its paths are rebased.
  contactlab::core::apply_override(root, "bodies.ball={name: ball, mass_kg: 2}");
  CHECK(root.find("bodies")->at(1).find("mass_kg")->path() == "bodies[1].mass_kg");
  CHECK(root.find("bodies")->at(1).find("geometry") == nullptr);
}

TEST_CASE("config: --set creates missing keys") {
  ConfigNode root = parse(kScene);
  contactlab::core::apply_override(root, "output.recorder.every_n=10");
  const ConfigNode& every = *root.find("output")->find("recorder")->find("every_n");
  CHECK(every.scalar() == "10");
  CHECK(every.path() == "output.recorder.every_n");
  CHECK(root.find("output")->location().file == "--set output.recorder.every_n=10");
  CHECK(root.entries().back().first == "output");

  contactlab::core::apply_override(root, "bodies.ball.mass_kg=3");
  CHECK(root.find("bodies")->at(1).find("mass_kg")->path() == "bodies[1].mass_kg");

  ConfigNode empty = parse("");
  contactlab::core::apply_override(empty, "a.b=1");
  CHECK(empty.find("a")->find("b")->scalar() == "1");

  ConfigNode null_key = parse("params:\n");
  contactlab::core::apply_override(null_key, "params.k=2");
  CHECK(null_key.find("params")->find("k")->path() == "params.k");
}

TEST_CASE("config: --set values are YAML: lists, maps, quoted text and empty values") {
  ConfigNode root = parse("gravity: [0, 0, -9.81]\nintegrator: {type: euler, dt: 0.1}\n");
  contactlab::core::apply_override(root, "gravity=[0,0,-1]");
  const ConfigNode& gravity = *root.find("gravity");
  REQUIRE(gravity.is_sequence());
  CHECK(contactlab::core::as_vec3(gravity) == contactlab::Vec3(0, 0, -1));
  CHECK(gravity.at(2).path() == "gravity[2]");
  CHECK(gravity.at(2).location().file == "--set gravity=[0,0,-1]");

  contactlab::core::apply_override(root, "integrator={type: rk4}");
  CHECK(root.find("integrator")->find("type")->scalar() == "rk4");
  CHECK(root.find("integrator")->find("dt") == nullptr);  // replaced, not merged
  CHECK(root.find("integrator")->find("type")->location().line == 0);

  contactlab::core::apply_override(root, "label='a = b'");
  CHECK(root.find("label")->scalar() == "a = b");
  contactlab::core::apply_override(root, "nothing=");
  CHECK(root.find("nothing")->is_null());
}

TEST_CASE("config: --set errors say what is wrong and name the failing segment") {
  ConfigNode root = parse(kScene);
  using contactlab::core::apply_override;
  CHECK_THAT(input_error([&] { apply_override(root, "integrator.dt"); }),
             Contains("expected --set dotted.path=value"));
  CHECK_THAT(input_error([&] { apply_override(root, "=3"); }),
             Contains("expected --set dotted.path=value"));
  CHECK_THAT(input_error([&] { apply_override(root, "a..b=3"); }), Contains("empty name"));
  CHECK_THAT(input_error([&] { apply_override(root, "bodies.5.fixed=true"); }),
             Equals("--set bodies.5.fixed=true: index 5 is out of range: 'bodies' is a list of 2 "
                    "(indices 0..1)"));
  CHECK_THAT(input_error([&] { apply_override(root, "bodies.bal.fixed=true"); }),
             Equals("--set bodies.bal.fixed=true: no element named 'bal' in 'bodies' (known "
                    "names: 'floor', 'ball'); did you mean 'ball'?"));
  CHECK_THAT(input_error([&] { apply_override(root, "bodies.wall.fixed=true"); }),
             Contains("no element named 'wall' in 'bodies' (known names: 'floor', 'ball')"));
  CHECK_THAT(input_error([&] { apply_override(root, "integrator.type.order=4"); }),
             Equals("--set integrator.type.order=4: cannot go into 'order': 'integrator.type' is "
                    "a single value ('rk4', from t.yaml:11:9), not a map or a list"));
  CHECK_THAT(input_error([&] { apply_override(root, "gravity=[0, 0"); }),
             StartsWith("--set gravity=[0, 0: the value '[0, 0' is not valid YAML: "));
  // Nothing was changed by the failed overrides.
  CHECK(root.find("integrator")->find("type")->scalar() == "rk4");
  CHECK(root.find("gravity") == nullptr);
}

// -------------------------------------------------------------------------------------------------
// Emission

TEST_CASE("config: to_yaml output parses back to the same tree") {
  const std::string text = std::string(kScene) +
                           "odd:\n"
                           "  - ''\n"
                           "  - '~'\n"
                           "  - 'null'\n"
                           "  - 'a: b'\n"
                           "  - '- x'\n"
                           "  - '#hash'\n"
                           "  - ' lead'\n"
                           "  - \"two\\nlines\"\n"
                           "  - ~\n"
                           "  - []\n"
                           "  - {}\n"
                           "  - [1, [2, 3]]\n"
                           "  - 'it''s'\n"
                           "'key: with colon': 1\n"
                           "nothing:\n";
  const ConfigNode original = parse(text);
  const std::string yaml = contactlab::core::to_yaml(original);
  const ConfigNode again = contactlab::core::parse_yaml(yaml, "again.yaml");
  CHECK(same_tree(original, again));
  CHECK(again.find("odd")->at(8).is_null());
  CHECK(again.find("odd")->at(9).is_sequence());
  CHECK(again.find("odd")->at(1).scalar() == "~");
  CHECK(again.find("odd")->at(0).is_scalar());
  CHECK(again.find("odd")->at(7).scalar() == "two\nlines");
  CHECK(again.find("nothing")->is_null());
  // Block style, keys in order.
  CHECK_THAT(yaml, StartsWith("bodies:\n  - name: floor\n    fixed: true\n"));
  CHECK(contactlab::core::to_yaml(ConfigNode()) == "~\n");
}
