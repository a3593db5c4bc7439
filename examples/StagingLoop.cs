// ferry example (C#, Mono or .NET): frames in a managed byte[] submitted as batches (pinned
// during each Submit call); the output is a device pointer (IntPtr) with its shape, or host
// memory on the CPU backend. Build: mcs -r:Ferry.dll StagingLoop.cs   Run: mono StagingLoop.exe
using System;
using System.Runtime.InteropServices;
using Ferry;

static class StagingLoop {
  static int Main() {
    const int n = 4, h = 32, w = 32, c = 3;
    var frames = new byte[n * h * w * c];
    try {
      using (var ctx = new Context())
      using (var source = new Source().SetShape(n, h, w, c))
      using (var transform = new Transform()) {
        transform.SetMean(0.485f, 0.456f, 0.406f);
        transform.SetStd(0.229f, 0.224f, 0.225f);
        for (int step = 0; step < 3; ++step) {
          for (int i = 0; i < frames.Length; ++i) frames[i] = (byte)(step * 50);
          using (Batch batch = ctx.Submit(source, frames, transform)) {
            // frames may be refilled now; the conversion may still run:
            batch.Wait();
            using (TensorInfo output = batch.Output()) {
              Console.WriteLine("step {0}: {1} tensor [{2}, {3}, {4}, {5}] at 0x{6:x}", step, output.DeviceKind,
                  output.ShapeAt(0), output.ShapeAt(1), output.ShapeAt(2), output.ShapeAt(3), output.Data.ToInt64());
              if (output.DeviceKind == DeviceKind.Cpu) {
                var first = new float[1];
                Marshal.Copy(output.Data, first, 0, 1);
                float want = ((step * 50) / 255.0f - 0.485f) / 0.229f;
                if (Math.Abs(first[0] - want) > 1e-4f) throw new Exception(first[0] + " != " + want);
              }
            }
          }
        }
      }
    } catch (FerryException e) {
      Console.Error.WriteLine("ferry failed: " + e.Message);
      return 1;
    }
    Console.WriteLine("ok");
    return 0;
  }
}
