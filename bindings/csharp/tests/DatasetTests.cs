using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>Resident datasets (ferry/dataset.h) on the CPU backend: gathers checked byte for byte
/// against submits of the same samples from host memory.</summary>
[TestFixture]
public class DatasetTests {
  internal const long H = 6, W = 5, C = 3, Sample = H * W * C;

  internal static byte[] RandomBytes(long count, int seed) {
    var data = new byte[count];
    new Random(seed).NextBytes(data);
    return data;
  }

  /// <summary>The output of a batch, waited for, as bytes; the batch is disposed.</summary>
  internal static byte[] BytesOf(Batch batch) {
    using (batch) {
      batch.Wait();
      using (TensorInfo info = batch.Output()) {
        var bytes = new byte[info.Bytes];
        Marshal.Copy(info.Data, bytes, 0, bytes.Length);
        return bytes;
      }
    }
  }

  /// <summary>Samples indices of data (H x W x C each) packed into one byte[], in that order.</summary>
  internal static byte[] Pick(byte[] data, long[] indices) {
    var picked = new byte[indices.Length * Sample];
    for (int i = 0; i < indices.Length; ++i) Array.Copy(data, indices[i] * Sample, picked, i * Sample, Sample);
    return picked;
  }

  /// <summary>The same samples submitted from host memory through the same transform.</summary>
  static byte[] FromHost(Context ctx, byte[] data, long[] indices, Transform t) {
    using (var source = new Source().SetShape(indices.Length, H, W, C)) return BytesOf(ctx.Submit(source, Pick(data, indices), t));
  }

  internal static Dataset MakeDataset(Context ctx, byte[] data, DatasetOptions options = null) {
    using (var source = new Source().SetShape(data.Length / Sample, H, W, C)) return new Dataset(ctx, source, data, options);
  }

  internal static Transform Uint8Nhwc() { return new Transform().SetOutDtype("uint8").SetOutLayout("NHWC"); }

  internal static Augment CropFlipJitter(ulong step) {
    return new Augment { Seed = 7, Step = step, Crop = AugmentCrop.CropRandom, Padding = 2, FlipXProbability = 0.5f,
                         Brightness = new[] { 0.6f, 1.4f }, Saturation = new[] { 0.5f, 1.5f } };
  }

  internal static void AssertFerry<T>(string part, TestDelegate call) where T : FerryException {
    var e = Assert.Throws<T>(call);
    StringAssert.Contains(part, e.Message);
  }

  static DatasetOptions Ranks(DatasetPlacement placement, int rank, int worldSize) {
    return new DatasetOptions { Placement = placement, Rank = rank, WorldSize = worldSize };
  }

  [Test]
  public void GathersAsASubmitOfTheSameSamplesFromHostMemory() {
    byte[] data = RandomBytes(40 * Sample, 1);
    long[] indices = { 5, 0, 39, 5, 17, 2 };
    using (Context ctx = FerryTests.CpuContext())
    using (var t = new Transform().SetMean(0.5f, 0.4f, 0.3f).SetStd(0.25f))
    using (var copy = Uint8Nhwc()) {
      Dataset ds = MakeDataset(ctx, data);
      using (DatasetInfo info = ds.Info()) {
        Assert.AreEqual(40, info.Count);
        Assert.AreEqual(40, info.SourceCount);
        Assert.AreEqual(new[] { H, W, C }, new[] { info.H, info.W, info.C });
        Assert.AreEqual(Layout.Nhwc, info.Layout);
        Assert.AreEqual(0, info.VariableSizes);
        Assert.AreEqual((ulong)data.Length, info.Bytes);
        Assert.AreEqual(DeviceKind.Cpu, info.DeviceKind);
        Assert.AreEqual(DatasetPlacement.Replica, info.Placement);
        Assert.AreEqual(40, info.EpochSize);
      }
      using (Stats stats = ctx.Stats()) Assert.AreEqual((ulong)data.Length, stats.ResidentBytes);
      Assert.AreEqual(FromHost(ctx, data, indices, t), BytesOf(ds.Gather(indices, t)));
      Assert.AreEqual(Pick(data, indices), BytesOf(ds.Gather(indices, copy)));  // the samples themselves
      StringAssert.StartsWith("Dataset(40 of 40 samples, 6 x 5 x 3 Nhwc", ds.ToString());
      ds.Dispose();
      using (Stats stats = ctx.Stats()) Assert.AreEqual(0UL, stats.ResidentBytes);
    }
  }

  [Test]
  public void SetBufferSpanAndPartsUploadAsTheByteArray() {
    byte[] data = RandomBytes(9 * Sample, 2);
    long[] all = Enumerable.Range(0, 9).Select(i => (long)i).ToArray();
    using (Context ctx = FerryTests.CpuContext())
    using (var copy = Uint8Nhwc())
    using (var options = new DatasetOptions { PartBytes = 2 * Sample })  // five parts through the staging pipeline
    using (var source = new Source().SetShape(9, H, W, C)) {
      var padded = new byte[data.Length + 7];
      Array.Copy(data, 0, padded, 7, data.Length);
      source.SetBuffer(padded, 7);
      using (var ds = new Dataset(ctx, source, options)) Assert.AreEqual(data, BytesOf(ds.Gather(all, copy)));
      source.SetBuffer(null);
      using (var ds = new Dataset(ctx, source, new ReadOnlySpan<byte>(padded, 7, data.Length)))
        Assert.AreEqual(data, BytesOf(ds.Gather(all, copy)));
    }
  }

  [Test]
  public void AugmentedGathersDrawAsTheSameBatchFromHostMemory() {
    byte[] data = RandomBytes(24 * Sample, 3);
    long[] indices = { 3, 9, 1, 23, 0, 12, 7, 7 };
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = MakeDataset(ctx, data))
    using (var t = new Transform().SetResize(4, 4).SetOutDtype("float16").SetMean(0.5f).SetStd(0.25f)) {
      byte[] previous = null;
      foreach (ulong step in new ulong[] { 0, 1, 5 }) {
        using (Augment a = CropFlipJitter(step)) {
          t.Augment = a;
          a.RequestDrawn(indices.Length);
          Batch gathered = ds.Gather(indices, t);
          AugmentParams[] drawn = gathered.Drawn();
          byte[] bytes = BytesOf(gathered);
          using (var source = new Source().SetShape(indices.Length, H, W, C)) {
            Batch host = ctx.Submit(source, Pick(data, indices), t);
            Assert.AreEqual(host.Drawn(), drawn, "step " + step);
            Assert.AreEqual(BytesOf(host), bytes, "step " + step);
          }
          Assert.AreNotEqual(previous, bytes, "step " + step + " drew as the step before");
          previous = bytes;
          t.Augment = null;
        }
      }
    }
  }

  [Test]
  public void ImagesOfDifferentSizesAreResizedOnTheWayOut() {
    long[,] sizes = { { 6, 9 }, { 4, 4 }, { 11, 3 } };
    var images = new List<Source.Image>();
    IntPtr memory = Marshal.AllocHGlobal(4 * 4 * 3);
    try {
      for (int i = 0; i < 3; ++i) {
        byte[] pixels = RandomBytes(sizes[i, 0] * sizes[i, 1] * C, 10 + i);
        if (i == 1) {  // one in unmanaged memory, the others pinned for the upload
          Marshal.Copy(pixels, 0, memory, pixels.Length);
          images.Add(new Source.Image(memory, pixels.Length, 4, 4, C));
        } else {
          images.Add(new Source.Image(pixels, sizes[i, 0], sizes[i, 1], C));
        }
      }
      long[] indices = { 2, 0, 1, 2 };
      using (Context ctx = FerryTests.CpuContext())
      using (var all = new Source().SetImages(images))
      using (var host = new Source().SetImages(indices.Select(i => images[(int)i])))
      using (var ds = new Dataset(ctx, all))
      using (var t = new Transform().SetResize(5, 4))
      using (var plain = new Transform()) {
        using (DatasetInfo info = ds.Info()) {
          Assert.AreEqual(1, info.VariableSizes);
          Assert.AreEqual(new long[] { 11, 9 }, new[] { info.H, info.W });
        }
        Assert.AreEqual(BytesOf(ctx.Submit(host, t)), BytesOf(ds.Gather(indices, t)));
        AssertFerry<InvalidArgumentException>("resize", () => ds.Gather(indices, plain));  // no one output size
      }
    } finally {
      Marshal.FreeHGlobal(memory);
    }
  }

  [Test]
  public void GatherDeviceReadsTheIndicesFromTheContextsMemory() {
    byte[] data = RandomBytes(12 * Sample, 11);
    long[] indices = { 11, 0, 4, 4, 7 };
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = MakeDataset(ctx, data))
    using (var copy = Uint8Nhwc())
    using (var t = new Transform().SetMean(0.5f).SetStd(0.2f)) {
      IntPtr address = ctx.DeviceAlloc((ulong)(8 * indices.Length));  // host memory on the CPU backend
      try {
        Marshal.Copy(indices, 0, address, indices.Length);
        Assert.AreEqual(BytesOf(ds.Gather(indices, t)), BytesOf(ds.GatherDevice(address, indices.Length, t)));
        Marshal.WriteInt64(address, 99);  // read when the gather runs, not checked: clamped to the last sample
        Assert.AreEqual(Pick(data, new long[] { 11, 0 }), BytesOf(ds.GatherDevice(address, 2, copy)));
        AssertFerry<InvalidArgumentException>("count is 0", () => ds.GatherDevice(address, 0));
        AssertFerry<InvalidArgumentException>("indices", () => ds.GatherDevice(IntPtr.Zero, 1));
      } finally {
        ctx.DeviceFree(address);
      }
    }
  }

  [Test]
  public void EpochsArePermutationsSharedOutAmongRanks() {
    byte[] data = RandomBytes(11 * Sample, 4);
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = MakeDataset(ctx, data)) {
      long[] a = ds.Epoch(42, 0, true);
      Assert.AreEqual(a, ds.Epoch(42, 0, true));
      Assert.AreNotEqual(a, ds.Epoch(42, 1, true));
      Assert.AreNotEqual(a, ds.Epoch(43, 0, true));
      long[] inOrder = Enumerable.Range(0, 11).Select(i => (long)i).ToArray();
      Assert.AreEqual(inOrder, a.OrderBy(i => i).ToArray());
      Assert.AreEqual(inOrder, ds.Epoch(42, 1, false));
      // Three ranks of replicas: places rank, rank + 3, ... of the same permutation, padded by wrapping.
      var seen = new List<long>();
      for (int rank = 0; rank < 3; ++rank) {
        using (var o = Ranks(DatasetPlacement.Replica, rank, 3))
        using (Dataset r = MakeDataset(ctx, data, o)) {
          long[] share = r.Epoch(42, 0, true);
          Assert.AreEqual(4, share.Length);
          for (int k = 0; k < 4; ++k) Assert.AreEqual(a[(rank + 3 * k) % 11], share[k], "rank " + rank + " place " + k);
          seen.AddRange(share);
        }
      }
      Assert.AreEqual(12, seen.Count);
      Assert.AreEqual(inOrder, seen.Distinct().OrderBy(i => i).ToArray());
    }
  }

  [Test]
  public void AShardHoldsItsRanksSamples() {
    byte[] data = RandomBytes(10 * Sample, 5);
    using (Context ctx = FerryTests.CpuContext())
    using (var o = Ranks(DatasetPlacement.Shard, 1, 3))
    using (Dataset ds = MakeDataset(ctx, data, o))
    using (var copy = Uint8Nhwc()) {
      long[] expected = { 1, 4, 7, 0 };  // ceil(10 / 3) places; 10 wraps round to 0
      Assert.AreEqual(expected, Enumerable.Range(0, 4).Select(i => ds.SourceIndex(i)).ToArray());
      Assert.AreEqual(Pick(data, expected), BytesOf(ds.Gather(new long[] { 0, 1, 2, 3 }, copy)));
      Assert.AreEqual(new long[] { 0, 1, 2, 3 }, ds.Epoch(9, 0, true).OrderBy(i => i).ToArray());  // permuted in itself
      AssertFerry<OutOfRangeException>("index is 4", () => ds.SourceIndex(4));
    }
  }

  [Test]
  public void BadInputRaisesFerrysErrorNamingTheArgument() {
    byte[] data = RandomBytes(6 * Sample, 6);
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = MakeDataset(ctx, data)) {
      AssertFerry<OutOfRangeException>("indices[1] is 6", () => ds.Gather(new long[] { 0, 6 }));
      AssertFerry<OutOfRangeException>("indices[0] is -1", () => ds.Gather(new long[] { -1 }));
      AssertFerry<InvalidArgumentException>("indices is empty", () => ds.Gather(new long[0]));
      AssertFerry<InvalidArgumentException>("indices is null", () => ds.Gather(null));
      AssertFerry<OutOfRangeException>("index is -1", () => ds.SourceIndex(-1));
      using (var chunked = new SubmitOptions { ChunkBytes = 1024 })
        AssertFerry<InvalidArgumentException>("options->chunk_bytes is 1024", () => ds.Gather(new long[] { 0 }, null, null, chunked));
      using (var t = new Transform().SetMean(0.5f, 0.5f))  // 2 values for 3 channels, as at Submit
        AssertFerry<InvalidArgumentException>("mean has 2 values", () => ds.Gather(new long[] { 0 }, t));
      using (var source = new Source().SetShape(6, H, W, C))
      using (var o = Ranks(DatasetPlacement.Replica, 2, 2)) {
        AssertFerry<InvalidArgumentException>("options->rank is 2", () => new Dataset(ctx, source, data, o));
        AssertFerry<InvalidArgumentException>("data is null", () => new Dataset(ctx, source, (byte[])null));
        AssertFerry<InvalidArgumentException>("data is empty", () => new Dataset(ctx, source, new byte[0]));
        source.N = 0;
        AssertFerry<InvalidArgumentException>("source.n", () => new Dataset(ctx, source, data));
      }
      using (Stats stats = ctx.Stats()) Assert.AreEqual(1UL, stats.ResidentDatasets);  // the failed uploads hold nothing
    }
  }

  [Test]
  public void ADisposedDatasetOrContextIsAnInvalidHandle() {
    byte[] data = RandomBytes(4 * Sample, 7);
    Context ctx = FerryTests.CpuContext();
    Dataset disposed = MakeDataset(ctx, data);
    disposed.Dispose();
    disposed.Dispose();  // idempotent
    Assert.AreEqual("Dataset(disposed)", disposed.ToString());
    AssertFerry<InvalidHandleException>("dataset", () => disposed.Gather(new long[] { 0 }));
    AssertFerry<InvalidHandleException>("dataset", () => disposed.Info());
    AssertFerry<InvalidHandleException>("dataset", () => disposed.Epoch(1, 0, true));
    AssertFerry<InvalidHandleException>("dataset", () => disposed.SourceIndex(0));
    var options = new DatasetOptions();
    options.Dispose();  // a disposed struct's fields throw too, not crash
    AssertFerry<InvalidHandleException>("the DatasetOptions is disposed", () => Console.WriteLine(options.Rank));

    Dataset orphan = MakeDataset(ctx, data);
    ctx.Dispose();  // destroys its datasets
    AssertFerry<InvalidHandleException>("dataset", () => orphan.Info());
    AssertFerry<InvalidHandleException>("dataset", () => orphan.Gather(new long[] { 0 }));
    Assert.AreEqual("Dataset(destroyed with its context)", orphan.ToString());
    orphan.Dispose();  // nothing left to free, and no error
  }

  [Test]
  public void AGatherKeepsTheSamplesOfADatasetDisposedMeanwhile() {
    byte[] data = RandomBytes(8 * Sample, 8);
    long[] indices = { 7, 6, 5 };
    using (Context ctx = FerryTests.CpuContext())
    using (var copy = Uint8Nhwc()) {
      Dataset ds = MakeDataset(ctx, data);
      Batch batch = ds.Gather(indices, copy);
      ds.Dispose();
      Assert.AreEqual(Pick(data, indices), BytesOf(batch));
      using (Stats stats = ctx.Stats()) Assert.AreEqual(0UL, stats.ResidentBytes);  // the batch's release let them go
    }
  }

  [Test]
  public void GathersFromSeveralThreadsAtOnce() {
    byte[] data = RandomBytes(64 * Sample, 9);
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = MakeDataset(ctx, data))
    using (Augment a = CropFlipJitter(3))
    using (var t = new Transform().SetResize(4, 4)) {
      t.Augment = a;
      var lists = new long[4][];
      var expected = new byte[4][];
      for (int k = 0; k < 4; ++k) {
        lists[k] = Enumerable.Range(0, 16).Select(i => (long)((k * 16 + i * 7) % 64)).ToArray();
        expected[k] = FromHost(ctx, data, lists[k], t);
      }
      int mismatches = 0;
      var threads = Enumerable.Range(0, 4).Select(k => new Thread(() => {
        for (int round = 0; round < 10; ++round) {
          try {
            if (!expected[k].SequenceEqual(BytesOf(ds.Gather(lists[k], t)))) Interlocked.Increment(ref mismatches);
          } catch (FerryException) {  // a thread's exception would not fail the test by itself
            Interlocked.Increment(ref mismatches);
          }
        }
      })).ToList();
      threads.ForEach(thread => thread.Start());
      threads.ForEach(thread => thread.Join());
      Assert.AreEqual(0, mismatches);
    }
  }
}

}
