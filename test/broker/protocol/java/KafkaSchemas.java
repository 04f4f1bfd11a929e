// Prints the wire shape of Kafka message classes, as the installed Kafka 4.x
// client jars define them, one line per field and version:
//   <Message> range <lowest> <highest>
//   <Message> v<N> <path> <type> <nullable 0|1>
// <type> is the definition language's: int8..int64, uint16, float64, bool,
// uuid, string, bytes, records, struct, []<element>. (The nullability of
// records is not visible in the Java types: printed as 0.)
import java.util.Optional;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Type;

public class KafkaSchemas {
  public static void main(String[] args) throws Exception {
    for (String name : args) {
      Class<?> c = Class.forName("org.apache.kafka.common.message." + name + "Data");
      Schema[] schemas = (Schema[]) c.getField("SCHEMAS").get(null);
      short lo = c.getField("LOWEST_SUPPORTED_VERSION").getShort(null);
      short hi = c.getField("HIGHEST_SUPPORTED_VERSION").getShort(null);
      System.out.println(name + " range " + lo + " " + hi);
      for (int v = lo; v <= hi; v++) walk(name + " v" + v, "", schemas[v]);
    }
  }

  static String prim(Type t) {
    String s = t.toString();
    if (s.endsWith("RECORDS")) return "records";
    if (s.endsWith("STRING")) return "string";
    if (s.endsWith("BYTES")) return "bytes";
    switch (s) {
      case "BOOLEAN": return "bool";
      case "UUID": return "uuid";
      default: return s.toLowerCase();
    }
  }

  static void walk(String head, String path, Schema s) {
    for (BoundField f : s.fields()) {
      if (f.def.name.equals("_tagged_fields")) continue;
      String p = path.isEmpty() ? f.def.name : path + "." + f.def.name;
      Type t = f.def.type;
      int nullable = t.isNullable() && !prim(t).equals("records") ? 1 : 0;
      if (t instanceof Schema) {
        System.out.println(head + " " + p + " struct " + nullable);
        walk(head, p, (Schema) t);
      } else if (t.isArray()) {
        Optional<Type> e = t.arrayElementType();
        Type el = e.get();
        if (el instanceof Schema) {
          System.out.println(head + " " + p + " []struct " + nullable);
          walk(head, p, (Schema) el);
        } else {
          System.out.println(head + " " + p + " []" + prim(el) + " " + nullable);
        }
      } else {
        System.out.println(head + " " + p + " " + prim(t) + " " + nullable);
      }
    }
  }
}
