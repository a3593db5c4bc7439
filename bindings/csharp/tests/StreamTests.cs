using System;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>Streams (ferry_cuda_stream, a cudaStream_t) cross the binding as IntPtr. The CPU
/// backend accepts streams and ignores them, so this checks every stream argument on any
/// machine.</summary>
[TestFixture]
public class StreamTests {
  static readonly IntPtr Stream = new IntPtr(0x7f0012345678L);  // shaped like a cudaStream_t

  static Context CpuContext() {
    using (var options = new ContextOptions()) {
      options.DeviceKind = DeviceKind.Cpu;
      options.CpuThreads = 2;
      return new Context(options);
    }
  }

  [Test]
  public void TheHandoffStreamFieldIsAnIntPtr() {
    using (var options = new SubmitOptions()) {
      Assert.AreEqual(IntPtr.Zero, options.HandoffStream);
      options.HandoffStream = Stream;
      Assert.AreEqual(Stream, options.HandoffStream);
    }
  }

  [Test]
  public void AHandoffStreamNeedsHasHandoffStream() {
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(1, 2, 2, 3))
    using (var options = new SubmitOptions()) {
      options.HandoffStream = Stream;
      var e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, new byte[12], null, null, options));
      StringAssert.Contains("has_handoff_stream is 0", e.Message);
    }
  }

  [Test]
  public void EveryStreamArgumentTakesAnIntPtr() {
    var data = new byte[2 * 4 * 5 * 3];
    for (int i = 0; i < data.Length; ++i) data[i] = (byte)(i * 37);
    using (Context ctx = CpuContext())
    using (var source = new Source().SetShape(2, 4, 5, 3))
    using (var transform = new Transform())
    using (var options = new SubmitOptions())
    using (var output = new Output()) {
      options.HasHandoffStream = 1;
      options.HandoffStream = Stream;
      using (Batch batch = ctx.Submit(source, data, transform, null, options)) {
        batch.Wait();
        batch.StreamWait(Stream);
      }
      IntPtr input = ctx.DeviceAlloc((ulong)data.Length, Stream);
      IntPtr converted = ctx.DeviceAlloc((ulong)data.Length * 4, Stream);
      Marshal.Copy(data, 0, input, data.Length);
      source.Data = input;
      source.Bytes = (ulong)data.Length;
      output.Data = converted;
      output.Bytes = (ulong)data.Length * 4;
      ctx.Convert(source, transform, output, Stream);
      var x = new float[2];
      Marshal.Copy(converted, x, 0, x.Length);
      Assert.AreEqual(data[3] / 255.0f, x[1], 1e-6f);  // NCHW [0][0][0][1] is NHWC byte 3
      ctx.DeviceFree(input, Stream);
      ctx.DeviceFree(converted, Stream);
      ctx.HostFreeOnStream(ctx.HostAlloc(64), Stream);
    }
  }
}

}  // namespace Ferry.Tests
